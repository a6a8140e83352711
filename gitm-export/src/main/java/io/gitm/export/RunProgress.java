package io.gitm.export;

import io.gitm.api.Budget;
import io.gitm.api.Ticker;
import io.gitm.run.Phase;
import io.gitm.run.RunClock;
import io.gitm.run.RunEvents;
import io.gitm.search.TrialRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A run's progress as metrics, kept from the run's progress events on their way to the listener they wrap (the
 * console): the phase, elapsed and remaining time, the best gain so far, trials done and kept. The wrapped listener
 * always sees every event first and unchanged; a failure here is counted on the board and never reaches the run.
 */
final class RunProgress implements RunEvents {
  static final Family INFO = Board.def("gitm_run_info", Family.Type.GAUGE,
      "The run being optimized: its id, device (real or simulated) and budget; always 1.", "1");
  static final Family PHASE = Board.def("gitm_run_phase", Family.Type.GAUGE,
      "1 for the phase the run is in, 0 for the others.", "1");
  static final Family ELAPSED = Board.def("gitm_run_elapsed_seconds", Family.Type.GAUGE,
      "Time since the run started (in s).", "s");
  static final Family REMAINING = Board.def("gitm_run_remaining_seconds", Family.Type.GAUGE,
      "Budget left (in s).", "s");
  static final Family BEST = Board.def("gitm_run_best_gain", Family.Type.GAUGE,
      "Best measured gain so far over the shipped setup, as a fraction (0.2 is 20% better).", "1");
  static final Family TRIALS = Board.def("gitm_run_trials_total", Family.Type.COUNTER,
      "Trials done (each gated against the anchor).", "1");
  static final Family KEPT = Board.def("gitm_run_trials_kept_total", Family.Type.COUNTER,
      "Trials whose lever passed the rollback gate and was kept.", "1");
  static final List<Family> CATALOGUE = List.of(INFO, PHASE, ELAPSED, REMAINING, BEST, TRIALS, KEPT);

  private final RunEvents delegate;
  private final Ticker ticker;
  private final Spans spans;
  private final Board board;
  private String run;
  private String device;
  private String budgetText;
  private Duration budget;
  private long startNanos;
  private boolean started;
  private Phase phase;
  private double best = 1;
  private long trials;
  private long kept;

  RunProgress(RunEvents delegate, Ticker ticker, Spans spans, Board board) {
    this.delegate = delegate;
    this.ticker = ticker;
    this.spans = spans;
    this.board = board;
  }

  @Override
  public void header(String runId, String deviceText, String budgetLine) {
    delegate.header(runId, deviceText, budgetLine);
    guard(() -> {
      synchronized (this) {
        run = runId;
        device = deviceText;
        budgetText = budgetLine;
        budget = firstDuration(budgetLine);
        startNanos = ticker.nanos();
        started = true;
      }
      spans.run(runId, deviceText, budgetLine);
    });
  }

  @Override
  public void phase(Phase p, Duration window) {
    delegate.phase(p, window);
    guard(() -> {
      synchronized (this) {
        phase = p;
      }
      spans.phase(p);
    });
  }

  @Override
  public void line(String s) {
    delegate.line(s);
  }

  @Override
  public void trial(TrialRecord t, RunClock clock) {
    delegate.trial(t, clock);
    count(t, clock);
  }

  @Override
  public void reused(TrialRecord t, RunClock clock) {
    delegate.reused(t, clock);
    count(t, clock);
  }

  @Override
  public void trialStarted(String what, RunClock clock) {
    delegate.trialStarted(what, clock);
  }

  private void count(TrialRecord t, RunClock clock) {
    guard(() -> {
      synchronized (this) {
        if (t.kind() == TrialRecord.Kind.CONFIRMATION) {
          // the confirmation measures the shipped setup against the final one directly
          if (t.verdict().complete()) {
            best = t.verdict().gain();
          }
        } else if (t.kept()) {
          best *= t.verdict().gain();
        }
        trials++;
        if (t.kept()) {
          kept++;
        }
        startNanos = clock.startNanos();
        started = true;
        budget = clock.plan().budget().duration();
      }
      spans.trial(t);
    });
  }

  private void guard(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      board.failed();
    }
  }

  /** The run's families at ticker time {@code now}; none before the run's header. */
  synchronized List<Family> families(long now) {
    if (run == null) {
      return List.of();
    }
    List<Family> out = new ArrayList<>(7);
    out.add(new Family(INFO.name(), INFO.type(), INFO.help(), INFO.otelUnit(), List.of(new Family.Point(
        List.of("run", "device", "budget"), List.of(run, device, budgetText), 1))));
    List<Family.Point> phases = new ArrayList<>(Phase.values().length);
    for (Phase p : Phase.values()) {
      phases.add(Family.Point.of(p == phase ? 1 : 0, "phase", p.label().toLowerCase(Locale.ROOT)));
    }
    out.add(new Family(PHASE.name(), PHASE.type(), PHASE.help(), PHASE.otelUnit(), phases));
    double elapsed = started ? Math.max(0, now - startNanos) / 1e9 : 0;
    out.add(Board.with(ELAPSED, elapsed));
    if (budget != null) {
      out.add(Board.with(REMAINING, Math.max(0, budget.toNanos() / 1e9 - elapsed)));
    }
    out.add(Board.with(BEST, Double.isFinite(best) ? best - 1 : 0));
    out.add(Board.with(TRIALS, trials));
    out.add(Board.with(KEPT, kept));
    return out;
  }

  /** The budget at the start of a header's budget line ({@code "2m (profile 10s, …)"}), or null. */
  static Duration firstDuration(String budgetLine) {
    if (budgetLine == null || budgetLine.isBlank()) {
      return null;
    }
    String first = budgetLine.strip().split("[\\s(]", 2)[0];
    try {
      return Budget.parse(first).duration();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
