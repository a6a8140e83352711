package io.gitm.cli;

import io.gitm.api.Budget;
import io.gitm.api.Ticker;
import io.gitm.run.Phase;
import io.gitm.run.RunClock;
import io.gitm.run.RunEvents;
import io.gitm.run.RunLoop;
import io.gitm.search.TrialRecord;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What a run shows as it goes: the phase, elapsed and remaining time, the best gain so far, the trial running and
 * each trial done.
 *
 * <p>Every event is one plain line (readable in a log and when the output is not a terminal), a trial's start
 * included ({@code trial 3 pool-allocation running}). On a terminal ({@code live}), a status line below them — phase,
 * elapsed and remaining time, best gain, the trial running — is redrawn in place every second and after each event;
 * {@link #close} clears it. {@code gitm run --json} sends these lines to standard error, so that its document stays
 * alone on standard output.
 */
final class Progress implements RunEvents, AutoCloseable {
  /** Erases the terminal's current line and returns to its start. */
  static final String CLEAR_LINE = "\r\u001b[2K";

  private final PrintWriter out;
  private final boolean live;
  private final Ticker wall;
  private final ScheduledExecutorService redraw;
  private double best = 1;
  private String phase = "starting";
  private String running = "";
  private long startNanos;
  private Duration budget;
  private boolean statusShown;

  /**
   * @param live whether {@code out} is a terminal: a status line is kept redrawn below the plain lines
   */
  Progress(PrintWriter out, boolean live, Ticker wall) {
    this.out = out;
    this.live = live;
    this.wall = wall;
    this.startNanos = wall.nanos();
    if (live) {
      redraw = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gitm-progress");
        t.setDaemon(true);
        return t;
      });
      redraw.scheduleAtFixedRate(this::status, 1, 1, TimeUnit.SECONDS);
    } else {
      redraw = null;
    }
  }

  @Override
  public synchronized void header(String run, String device, String budget) {
    line("gitm run " + run);
    line("device   " + device);
    line("budget   " + budget);
    this.budget = firstDuration(budget);
  }

  @Override
  public synchronized void phase(Phase p, Duration window) {
    phase = p.label().toLowerCase(Locale.ROOT);
    running = "";
    line(String.format(Locale.ROOT, "phase    %s (up to %s)", phase,
        RunLoop.window(window.isNegative() ? Duration.ZERO : window)));
  }

  @Override
  public synchronized void trialStarted(String what, RunClock clock) {
    clock(clock);
    running = what;
    line(String.format(Locale.ROOT, "%s running  [%.0f s elapsed, %.0f s left, best so far %+.1f%%]", what,
        elapsed(), left(), (best - 1) * 100));
  }

  @Override
  public synchronized void reused(TrialRecord t, RunClock clock) {
    record(t, clock, "reused from the interrupted run: ");
  }

  @Override
  public synchronized void trial(TrialRecord t, RunClock clock) {
    record(t, clock, "");
  }

  private void record(TrialRecord t, RunClock clock, String prefix) {
    clock(clock);
    running = "";
    if (t.kind() == TrialRecord.Kind.CONFIRMATION) {
      // the confirmation measures the original against the final setup directly
      if (t.verdict().complete()) {
        best = t.verdict().gain();
      }
    } else if (t.kept()) {
      best *= t.verdict().gain();
    }
    var v = t.verdict();
    boolean confirmation = t.kind() == TrialRecord.Kind.CONFIRMATION;
    line(String.format(Locale.ROOT, "%s%-9s %-32s %-12s gain %s  [%.0f s elapsed, %.0f s left, best so far %+.1f%%]",
        prefix, confirmation ? "confirm" : String.format(Locale.ROOT, "trial %-3d", t.index() + 1),
        String.join("+", t.levers()), confirmation ? (v.kept() ? "CONFIRMED" : "NOT CONFIRMED")
            : v.kept() ? "KEPT" : "rolled back",
        Double.isFinite(v.gain()) ? String.format(Locale.ROOT, "%+.1f%% (CI %+.1f%%..%+.1f%%, p=%.2g)",
            (v.gain() - 1) * 100, (v.ciLow() - 1) * 100, (v.ciHigh() - 1) * 100, v.pValue())
            : "-  (" + v.outcome().name().toLowerCase(Locale.ROOT) + ")",
        elapsed(), left(), (best - 1) * 100));
  }

  @Override
  public synchronized void line(String s) {
    if (statusShown) {
      out.print(CLEAR_LINE);
      statusShown = false;
    }
    // a line may carry names from the job's trace or output
    out.println(Terminal.safe(s));
    if (live) {
      drawStatus();
    }
    out.flush();
  }

  /** The status line as it is drawn now. */
  synchronized String statusLine() {
    return String.format(Locale.ROOT, "[%s | %.0f s elapsed, %.0f s left | best %+.1f%%%s]", phase, elapsed(), left(),
        (best - 1) * 100, running.isEmpty() ? "" : " | " + running);
  }

  /** Stops redrawing and clears the status line. */
  @Override
  public synchronized void close() {
    if (redraw != null) {
      redraw.shutdownNow();
    }
    if (statusShown) {
      out.print(CLEAR_LINE);
      out.flush();
      statusShown = false;
    }
  }

  private synchronized void status() {
    drawStatus();
    out.flush();
  }

  private void drawStatus() {
    out.print(CLEAR_LINE + statusLine());
    statusShown = true;
  }

  private void clock(RunClock clock) {
    this.startNanos = clock.startNanos();
    this.budget = clock.plan().budget().duration();
  }

  private double elapsed() {
    return (wall.nanos() - startNanos) / 1e9;
  }

  private double left() {
    return budget == null ? 0 : Math.max(0, budget.toMillis() / 1000.0 - elapsed());
  }

  /** The budget at the start of the header's budget line ({@code 2m (profile 15s, ...)}), or null. */
  private static Duration firstDuration(String budgetLine) {
    try {
      return Budget.parse(budgetLine.strip().split("\\s+")[0]).duration();
    } catch (RuntimeException e) {
      return null;
    }
  }
}
