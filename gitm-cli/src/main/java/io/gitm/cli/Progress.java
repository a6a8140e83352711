package io.gitm.cli;

import io.gitm.agents.TrialRecord;
import io.gitm.api.Ticker;
import io.gitm.scheduler.Phase;
import io.gitm.scheduler.PhasePlan;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * What a run shows as it goes: the phase, elapsed and remaining time, the best gain so far and the trial just done.
 * One plain line per event (readable in a log and when the output is not a terminal); nothing with {@code --json},
 * whose single document comes at the end.
 */
final class Progress implements io.gitm.scheduler.RunLoop.Listener {
  private final PrintWriter out;
  private final boolean quiet;
  private final Ticker wall;
  private double best = 1;

  Progress(PrintWriter out, boolean quiet, Ticker wall) {
    this.out = out;
    this.quiet = quiet;
    this.wall = wall;
  }

  @Override
  public void header(String run, String device, String budget) {
    line("gitm run " + run);
    line("device   " + device);
    line("budget   " + budget);
  }

  @Override
  public void phase(Phase p, Duration window) {
    line(String.format(Locale.ROOT, "phase    %s (up to %s)", p.label().toLowerCase(Locale.ROOT),
        io.gitm.scheduler.RunLoop.window(window.isNegative() ? Duration.ZERO : window)));
  }

  @Override
  public void trial(TrialRecord t, long startNanos, PhasePlan plan) {
    if (t.kind() == io.gitm.agents.TrialRecord.Kind.CONFIRMATION) {
      // the confirmation measures the original against the final setup directly
      if (t.verdict().complete()) {
        best = t.verdict().gain();
      }
    } else if (t.kept()) {
      best *= t.verdict().gain();
    }
    double elapsed = (wall.nanos() - startNanos) / 1e9;
    double left = plan.budget().duration().toMillis() / 1000.0 - elapsed;
    var v = t.verdict();
    boolean confirmation = t.kind() == io.gitm.agents.TrialRecord.Kind.CONFIRMATION;
    line(String.format(Locale.ROOT, "%-9s %-32s %-12s gain %s  [%.0f s elapsed, %.0f s left, best so far %+.1f%%]",
        confirmation ? "confirm" : String.format(Locale.ROOT, "trial %-3d", t.index() + 1),
        String.join("+", t.levers()), confirmation ? (v.kept() ? "CONFIRMED" : "NOT CONFIRMED")
            : v.kept() ? "KEPT" : "rolled back",
        Double.isFinite(v.gain()) ? String.format(Locale.ROOT, "%+.1f%% (CI %+.1f%%..%+.1f%%, p=%.2g)",
            (v.gain() - 1) * 100, (v.ciLow() - 1) * 100, (v.ciHigh() - 1) * 100, v.pValue())
            : "-  (" + v.outcome().name().toLowerCase(Locale.ROOT) + ")",
        elapsed, Math.max(0, left), (best - 1) * 100));
  }

  @Override
  public void line(String s) {
    if (!quiet) {
      out.println(s);
      out.flush();
    }
  }
}
