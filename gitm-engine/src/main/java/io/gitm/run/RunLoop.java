package io.gitm.run;

import io.gitm.analysis.Analysis;
import io.gitm.api.Budget;
import io.gitm.api.Target;
import io.gitm.api.Ticker;
import io.gitm.job.Job;
import io.gitm.report.Report;
import io.gitm.search.Agent;
import io.gitm.search.Gate;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import io.gitm.store.RunStore;
import io.gitm.trace.DeviceKind;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.json.JsonMapper;

/**
 * One whole optimization run, shared by {@code gitm run} and the embedded API, as five steps each handing a record to
 * the next: profile ({@link ProfileStep}: in the run folder, {@code trace.gtrace} and {@code baseline.json}),
 * attribute ({@link AttributeStep}), rank ({@link RankStep}), apply ({@link ApplyStep}) and report
 * ({@link ReportStep}: {@code report.md}, {@code report.html}, {@code report.json}, {@code outcome.json}). Each step is
 * journaled in {@code journal.jsonl} so that a run can be resumed. What differs between a managed workload and a
 * black-box process is the {@link RunTarget}'s.
 */
public final class RunLoop {
  /**
   * State sampling period on a real device (100 Hz), in host time: the Granger matrix bins telemetry per sample
   * interval and needs at least 14 of them, so a profile of a fraction of a second still gets a testable series; one
   * NVML sample costs a small fraction of a period (docs/nvidia-backend.md has the figures).
   */
  public static final long SAMPLE_PERIOD_NS = 10_000_000L;
  /** State sampling period on the simulated device, in simulated time: its runs cover far less device time. */
  public static final long SIM_SAMPLE_PERIOD_NS = 1_000_000L;

  static final JsonMapper JSON = JsonMapper.builder().build();

  private RunLoop() {}

  /**
   * How a run is stopped from outside (Ctrl-C, SIGTERM, an embedding application): {@link #requestStop} sets a flag
   * that the profile loop and the phases look at, and, while the apply phase runs (or a process job's profile run),
   * interrupts the thread running it so that the trial or run in progress is cut. The interrupt never reaches the
   * thread outside those sections: entering and leaving them and requesting a stop are serialised on this object.
   */
  public static final class Control {
    private final AtomicBoolean stop = new AtomicBoolean();
    private Thread applying;

    public static Control none() {
      return new Control();
    }

    /** Asks the run to stop gracefully: it reverts to the anchor and writes the report of what was done. */
    public synchronized void requestStop() {
      stop.set(true);
      if (applying != null) {
        applying.interrupt();
      }
    }

    public boolean stopRequested() {
      return stop.get();
    }

    synchronized void enterApply() {
      applying = Thread.currentThread();
      if (stop.get()) {
        applying.interrupt();
      }
    }

    /** Leaves the apply phase; returns whether the thread had been interrupted (its flag is cleared). */
    synchronized boolean leaveApply() {
      applying = null;
      return Thread.interrupted();
    }
  }

  /**
   * What to run.
   *
   * @param job the job to optimize: a managed workload or a black-box process (closed by the loop once profiled)
   * @param resumed the run folder of an interrupted run to continue, or null
   * @param previous that run's journal, or null
   * @param levers when not empty, only these levers are considered
   * @param command the command line that started the run, as {@code run.json} keeps it (secrets redacted)
   * @param options what else shaped the run, by option name (e.g. {@code levers}, {@code max-iterations}): journaled
   *     in the run's {@code start} entry so that a resume restores them; values are JSON values, none null
   */
  public record Request(RunTarget job, Budget budget, Target target, RunStore store, RunDir resumed,
      Journal.Contents previous, Gate.Options gate, List<String> levers, String command, String gitmVersion,
      Map<String, Object> options) {
    public Request {
      levers = List.copyOf(levers == null ? List.of() : levers);
      options = Collections.unmodifiableMap(new LinkedHashMap<>(options == null ? Map.of() : options));
    }

    /** A request whose run journals no options beyond its levers. */
    public Request(RunTarget job, Budget budget, Target target, RunStore store, RunDir resumed,
        Journal.Contents previous, Gate.Options gate, List<String> levers, String command, String gitmVersion) {
      this(job, budget, target, store, resumed, previous, gate, levers, command, gitmVersion, Map.of());
    }
  }

  /** The options a run's {@code start} entry journaled ({@link Request#options()}); empty for an older journal. */
  public static Map<String, Object> journaledOptions(Journal.Contents journal) {
    for (Journal.Entry e : journal.entries()) {
      if (e.type().equals("start") && e.data().get("options") instanceof Map<?, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
      }
    }
    return Map.of();
  }

  /**
   * What a run did.
   *
   * @param search the agent's search, or null when the optimization failed ({@code failure} says why)
   * @param summary the run in brief, as {@code outcome.json} holds it
   */
  public record Result(RunDir run, Report.Status status, Profiler.Baseline baseline, Agent.Result search,
      Map<String, String> device, Map<String, Object> summary, String failure) {
    /** The improvement of the final setup over the shipped one (1 = none). */
    public double gain() {
      return search == null ? 1 : search.totalGain();
    }
  }

  /** Thrown when the run cannot go on; the run folder holds what was done and the journal says why. */
  public static final class RunFailure extends RuntimeException {
    public RunFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Runs (or resumes) a run whose clock starts now. Closes {@code request.job()}. */
  public static Result run(Request req, Ticker wall, Clock clock, RunEvents events, Control control)
      throws IOException {
    return run(req, wall, clock, events, control, wall.nanos());
  }

  /**
   * Runs (or resumes) a run whose clock started at {@code startedAtNanos} on {@code wall}: before the request's
   * device was opened (and before the process started, for {@code gitm run}), so that opening it counts inside the
   * budget. The run's set-up ({@link SetUp}: that start, then the target's own) is done before the budget is split:
   * the phases share what it left. A resumed run keeps the interrupted run's phases, and its clock starts earlier by
   * the time that run had used. Closes {@code request.job()}.
   *
   * @throws RunFailure when the job cannot be set up, or its set-up leaves the phases too little of the budget
   */
  public static Result run(Request req, Ticker wall, Clock clock, RunEvents events, Control control,
      long startedAtNanos) throws IOException {
    SetUp setUp = setUp(req, wall, startedAtNanos);
    Journal.Contents previous = req.previous();
    Duration usedBefore = Duration.ZERO;
    Duration planned = setUp.total();
    if (previous != null && !previous.entries().isEmpty()) {
      planned = SetUp.journaled(previous.entries().getFirst().data());
      usedBefore = planned.plus(Duration.between(Instant.parse(previous.entries().getFirst().time()),
          Instant.parse(previous.entries().getLast().time())));
    }
    Duration before = setUp.total().plus(usedBefore);
    RunClock runClock = new RunClock(new PhasePlan(req.budget(), planned), wall, wall.nanos() - before.toNanos());
    Instant started = clock.instant().minus(before);
    return execute(req, runClock, setUp, clock, started, events, control);
  }

  /**
   * The run's set-up: the time since {@code startedAtNanos}, then the target's own. A fresh run whose set-up leaves
   * its phases less than {@link SetUp#PHASES_LEAST} fails here, before its folder is made; the job is closed on any
   * failure.
   */
  private static SetUp setUp(Request req, Ticker wall, long startedAtNanos) {
    Duration startUp = Duration.ofNanos(Math.max(0, wall.nanos() - startedAtNanos));
    try {
      SetUp setUp = SetUp.of(startUp, req.job().setUp(wall));
      String tooLong = req.resumed() == null ? setUp.tooLongFor(req.budget()) : null;
      if (tooLong != null) {
        throw new RunFailure(req.job().name() + ": " + tooLong, null);
      }
      return setUp;
    } catch (RunFailure e) {
      req.job().close();
      throw e;
    } catch (RuntimeException e) {
      req.job().close();
      throw new RunFailure(req.job().name() + " could not be set up: " + oneLine(String.valueOf(e.getMessage())), e);
    }
  }

  /** Profile, attribute, rank, apply, report. */
  private static Result execute(Request req, RunClock clock, SetUp setUp, Clock time, Instant started,
      RunEvents events, Control control) throws IOException {
    try (RunLease lease = new RunLease()) {
      return execute(req, clock, setUp, time, started, events, control, lease);
    }
  }

  /** As {@link #execute}, holding the run folder's lock in {@code lease} from the folder's first write on. */
  private static Result execute(Request req, RunClock clock, SetUp setUp, Clock time, Instant started,
      RunEvents events, Control control, RunLease lease) throws IOException {
    Profiled profiled = ProfileStep.run(req, clock, setUp, time, events, control, lease);
    // the profile's device is closed: the apply phase opens the device again per setup (scheduling mode, settings)
    Tuning tuning = req.job().tune(profiled.baseline(), req.gate(), clock.plan());
    try (Journal j = profiled.run().journal()) {
      PhaseLog log = new PhaseLog(new RunJournal(j, time), events, clock, control);
      if (!profiled.resume().profiled()) {
        log.used(Phase.PROFILE, profiled.used());
      }
      profiled.resume().completed().forEach(t -> events.reused(t, clock));
      ReportStep.Optimized optimized = optimize(req, profiled, tuning, log);
      return ReportStep.run(req, profiled, optimized, started, log);
    }
  }

  /**
   * Attribute, rank and apply, on the job the agent measures. A failure in any of them ends the optimization, not the
   * run: the report tells what was done.
   */
  private static ReportStep.Optimized optimize(Request req, Profiled p, Tuning tuning, PhaseLog log) {
    Outcome outcome = null;
    String failure = null;
    try (Job.Closeable job = req.job().openJob(p.run(), log.clock().wall(), p.baseline(), tuning)) {
      Analysis.Result analysis = AttributeStep.run(p, log);
      Ranked ranked = RankStep.run(req, p, analysis, log);
      Applied applied = ApplyStep.run(req, ranked, tuning, job, p.resume().completed(), log);
      outcome = new Outcome(analysis, ranked, applied);
    } catch (RuntimeException e) {
      failure = Failures.describe(e);
      log.failed("optimize", failure);
    }
    return new ReportStep.Optimized(outcome, failure, log.control().leaveApply());
  }

  /** The state sampling period on a device of {@code kind}. */
  static long samplePeriod(DeviceKind kind) {
    return kind == DeviceKind.SIMULATED ? SIM_SAMPLE_PERIOD_NS : SAMPLE_PERIOD_NS;
  }

  static String oneLine(String s) {
    String t = s == null ? "" : s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl).strip();
  }

  static String label(DeviceKind k) {
    return k == DeviceKind.SIMULATED ? "SIMULATED device: every figure is modeled, not measured on a GPU"
        : "real device";
  }

  /** A phase window as a person reads it: {@code 2.5s}, {@code 40s}, {@code 1h30m}. */
  public static String window(Duration d) {
    if (d.toMillis() % 1000 != 0 && d.toSeconds() < 60) {
      return String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
    }
    return new Budget(d.isZero() ? Duration.ofSeconds(1) : d).toString();
  }

  /** A rate as a person reads it: {@code 12.17 M}, {@code 3.40 k}. */
  public static String si(double v) {
    if (v >= 1e9) {
      return String.format(Locale.ROOT, "%.2f G", v / 1e9);
    }
    if (v >= 1e6) {
      return String.format(Locale.ROOT, "%.2f M", v / 1e6);
    }
    if (v >= 1e3) {
      return String.format(Locale.ROOT, "%.2f k", v / 1e3);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
