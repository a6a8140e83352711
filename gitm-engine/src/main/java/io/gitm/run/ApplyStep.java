package io.gitm.run;

import io.gitm.job.Job;
import io.gitm.job.TrialFailure;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.rank.Counterfactual;
import io.gitm.search.Agent;
import io.gitm.search.TrialRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Phase 4, apply: the agent tries the ranked levers on the live job behind rollback gates. The phase may use the
 * report phase's window too but for a reserve ({@link #reportReserve}), since writing the report takes seconds.
 */
final class ApplyStep {
  private ApplyStep() {}

  /**
   * @param job the job the agent measures (the caller opens and closes it)
   * @param completed trials of an interrupted earlier run (resume); empty otherwise
   */
  static Applied run(RunLoop.Request req, Ranked r, Tuning tuning, Job job, List<TrialRecord> completed,
      PhaseLog log) {
    RunClock clock = log.clock();
    long t = clock.wall().nanos();
    Duration applyEnd = clock.plan().budget().duration().minus(reportReserve(clock.plan()));
    log.started(Phase.APPLY, applyEnd.minus(clock.elapsed()));
    Agent.Options ao = Agent.Options.defaults().withGate(tuning.gate()).withTarget(req.target().fraction())
        .withOutputTolerance(req.job().outputTolerance()).withExpectedTrial(tuning.expectedTrial());
    Agent agent = new Agent(clock.wall(), ao, r.replayed() ? onTop(r.replay(), r.candidates()) : null);
    Announcing announcing = new Announcing(job, r.shipped(), r.candidates(), r.context(), log, completed);
    Agent.Result result = agent.optimize(announcing, r.shipped(), r.candidates(), r.context(),
        clock.nanosAt(applyEnd), done -> {
          announcing.ended(done);
          log.trialDone(done);
          job.kept(announcing.anchor());
        }, completed);
    log.ended(Phase.APPLY, clock.since(t), result.detail());
    return new Applied(result, notReused(completed, result.trials()));
  }

  /** The window the report phase keeps: a tenth of it, at least 5 s, at most its whole window. */
  static Duration reportReserve(PhasePlan plan) {
    Duration w = plan.window(Phase.REPORT).length();
    Duration r = w.dividedBy(10);
    Duration min = Duration.ofSeconds(5);
    return r.compareTo(min) < 0 ? (w.compareTo(min) < 0 ? w : min) : r;
  }

  /**
   * Predictions of a lever on top of the kept levers, by counterfactual replay of the trace with their changes. Only
   * levers ranked by replay are asked.
   */
  static Agent.Predictor onTop(Supplier<Optional<Counterfactual>> replay, List<Candidate> candidates) {
    Set<String> modelled = new HashSet<>();
    candidates.stream().filter(c -> c.basis().equals("replay")).forEach(c -> modelled.add(c.id()));
    return (lever, kept) -> {
      Optional<Counterfactual> cf = modelled.contains(lever.id()) ? replay.get() : Optional.empty();
      Counterfactual.Prediction p = cf.map(c -> c.predictOnTop(lever, kept)).orElse(null);
      return p != null && p.modelled() ? OptionalDouble.of(Math.max(0.05, 1 + p.gain())) : OptionalDouble.empty();
    };
  }

  /** The earlier trials the resumed search did not come to (same kind, levers and anchor), in their order. */
  static List<TrialRecord> notReused(List<TrialRecord> completed, List<TrialRecord> trials) {
    List<TrialRecord> out = new ArrayList<>();
    for (TrialRecord e : completed) {
      boolean found = trials.stream().anyMatch(t -> t.kind() == e.kind() && t.levers().equals(e.levers())
          && t.anchorLevers().equals(e.anchorLevers()) && t.verdict().equals(e.verdict()));
      if (!found) {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * The job as the agent sees it, telling {@link PhaseLog#trialStarted} when a trial opens its first run of a setup
   * other than the anchor: the trial's number follows the last one done, and its levers are the candidate whose
   * setup on the anchor is the one opened (a pair or a confirmation is named as such).
   */
  private static final class Announcing implements Job {
    private final Job job;
    private final Setup shipped;
    private final List<Candidate> candidates;
    private final LeverContext context;
    private final PhaseLog log;
    private Setup anchor;
    private int done;
    private boolean announced;

    Announcing(Job job, Setup shipped, List<Candidate> candidates, LeverContext context, PhaseLog log,
        List<TrialRecord> completed) {
      this.job = job;
      this.shipped = shipped;
      this.anchor = shipped;
      this.candidates = candidates;
      this.context = context;
      this.log = log;
      completed.forEach(this::ended);
    }

    synchronized void ended(TrialRecord t) {
      done = Math.max(done, t.index() + 1);
      announced = false;
      if (t.kind() != TrialRecord.Kind.CONFIRMATION && t.kept()) {
        anchor = t.candidate();
      }
    }

    synchronized Setup anchor() {
      return anchor;
    }

    @Override
    public boolean sideBySide(Setup a, Setup b) {
      return job.sideBySide(a, b);
    }

    @Override
    public boolean randomizedOrder() {
      return job.randomizedOrder();
    }

    @Override
    public String metric() {
      return job.metric();
    }

    @Override
    public boolean higherIsBetter() {
      return job.higherIsBetter();
    }

    @Override
    public boolean reproducibleOutput() {
      return job.reproducibleOutput();
    }

    @Override
    public Run open(Setup setup) throws TrialFailure {
      String what = null;
      synchronized (this) {
        if (!announced && !setup.equals(anchor)) {
          announced = true;
          what = describe(setup);
        }
      }
      if (what != null) {
        log.trialStarted(done + 1, what);
      }
      return job.open(setup);
    }

    private String describe(Setup setup) {
      if (setup.equals(shipped)) {
        return "confirmation of the kept levers against the shipped setup";
      }
      for (Candidate c : candidates) {
        try {
          if (setup.equals(c.lever().apply(anchor, context.withSetup(anchor)))) {
            return c.id();
          }
        } catch (RuntimeException e) {
          // a lever that cannot apply to the anchor is not the one being tried
        }
      }
      return "a pair of levers";
    }
  }
}
