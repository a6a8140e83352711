package io.gitm.analysis;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.attribution.Thresholds;
import io.gitm.planner.Graph;
import io.gitm.trace.TraceDevice;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What changed between two runs of the same job: per cause, the lost time a run added against a baseline run, both
 * normalised to a unit of work so that runs of different length compare. A cause is {@link Status#NEW} when only the
 * run names it, {@link Status#GREW} when both do and the added lost time's 95% interval lies above 0 (and the added
 * time reaches {@link Thresholds#MIN_EFFECT} of the baseline's time per unit), {@link Status#STANDING} when both name
 * it otherwise, {@link Status#GONE} when only the baseline does. New and grown causes are ranked by added lost time ×
 * the run's confidence; standing and gone ones follow.
 *
 * <p>A cause a run does not name counts as no lost time there: its detector found less than the hypothesis floor or
 * nothing significant, so the added lost time of a new cause is at most what the run names.
 */
public final class Differential {
  private Differential() {}

  /** What the lost time is counted per. */
  public enum Unit {
    /** Per marked iteration: both runs mark iterations. */
    ITERATION("iteration"),
    /** Per kernel executed: neither marks iterations in both, and both ran the same kernel names. */
    KERNEL("kernel"),
    /** As a share of each run's own span: the kernel mixes differ, so no unit of work is common to both. */
    SPAN("span");

    private final String label;

    Unit(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** How a cause changed from the baseline to the run. */
  public enum Status {
    NEW, GREW, STANDING, GONE
  }

  /**
   * One run as compared.
   *
   * @param device the device it ran on (name, and uuid where known), empty when the trace names none
   * @param spanNs its span: first issued operation to the last end
   * @param iterations iteration markers in the trace (0 when it marks none)
   * @param kernels kernels executed
   * @param kernelNames the distinct kernel names
   * @param hypotheses its ranked hypotheses; each effect is a share of {@code spanNs}
   */
  public record Side(String device, long spanNs, int iterations, long kernels, Set<String> kernelNames,
      List<Hypothesis> hypotheses) {
    public Side {
      if (spanNs <= 0) {
        throw new IllegalArgumentException("a compared run needs a span above 0 ns, got " + spanNs
            + " (the trace has no device operation)");
      }
      if (iterations < 0 || kernels < 0) {
        throw new IllegalArgumentException("iterations and kernels cannot be negative, got " + iterations + " and "
            + kernels);
      }
      device = device == null ? "" : device;
      kernelNames = Set.copyOf(kernelNames);
      hypotheses = List.copyOf(hypotheses);
    }

    /** The side of an analysis: its span, marked iterations, kernels, first device and hypotheses. */
    public static Side of(Analysis.Result a) {
      if (a.spanNs() <= 0) {
        throw new IllegalArgumentException("the trace has no device operation: nothing to compare");
      }
      Set<String> names = new TreeSet<>();
      long kernels = 0;
      for (Graph.Node n : a.graph().nodes()) {
        if (n.kind() == Graph.Kind.KERNEL) {
          kernels++;
          names.add(n.name());
        }
      }
      String device = "";
      if (!a.meta().devices().isEmpty()) {
        TraceDevice d = a.meta().devices().getFirst();
        device = d.uuid().isEmpty() ? d.name() : d.name() + " (" + d.uuid() + ")";
      }
      return new Side(device, a.spanNs(), a.monitor().iterations().size(), kernels, names, a.hypotheses());
    }
  }

  /**
   * One cause's change. Lost times are per {@link Result#unit()}: ns per iteration or per kernel, or a share of the
   * span for {@link Unit#SPAN}.
   *
   * @param baselineLost lost time in the baseline (0 when it does not name the cause)
   * @param runLost lost time in the run (0 when it does not name the cause)
   * @param added {@code runLost - baselineLost}, with its 95% interval {@code addedLow..addedHigh}: each run's
   *     interval half-width (from its hypothesis's effect interval), combined as independent
   * @param addedShare {@code added} over the baseline's time per unit (for {@link Unit#SPAN}, {@code added} itself)
   * @param confidence the run's hypothesis's confidence (the baseline's for {@link Status#GONE})
   * @param score ranking score of a new or grown cause: {@code max(0, addedShare) × confidence}; 0 otherwise
   */
  public record Change(Cause cause, Status status, double baselineLost, double runLost, double added,
      double addedLow, double addedHigh, double addedShare, double confidence, double score) {
    /** Whether the cause is new or grew: what changed. */
    public boolean changed() {
      return status == Status.NEW || status == Status.GREW;
    }
  }

  /**
   * The comparison.
   *
   * @param baselineUnits iterations or kernels of the baseline (1 for {@link Unit#SPAN}); {@code runUnits} the run's
   * @param baselineTimePerUnit the baseline's span per unit in ns (its whole span for {@link Unit#SPAN});
   *     {@code runTimePerUnit} the run's
   * @param timeChange {@code runTimePerUnit / baselineTimePerUnit - 1}
   * @param notes what the reader must know: the normalisation, different devices, kernels only one run has
   * @param changes new and grown causes ranked (best first), then standing, then gone ones
   */
  public record Result(Unit unit, double baselineUnits, double runUnits, double baselineTimePerUnit,
      double runTimePerUnit, double timeChange, List<String> notes, List<Change> changes) {
    public Result {
      notes = List.copyOf(notes);
      changes = List.copyOf(changes);
    }

    /** The new and grown causes, ranked. */
    public List<Change> ranked() {
      return changes.stream().filter(Change::changed).toList();
    }

    /**
     * The added shares of the new and grown causes, summed: set beside {@link #timeChange()} it says how much of the
     * change they account for (causes' lost times may overlap, e.g. a slow clock and excess traffic in one kernel;
     * for {@link Unit#SPAN} both are shares of different spans).
     */
    public double addedByChanges() {
      return ranked().stream().mapToDouble(Change::addedShare).sum();
    }
  }

  /** {@link #compare(Side, Side)} of two analyses. */
  public static Result compare(Analysis.Result baseline, Analysis.Result run) {
    if (baseline == null || run == null) {
      throw new IllegalArgumentException("a comparison needs a baseline and a run");
    }
    for (Analysis.Result a : List.of(baseline, run)) {
      if (a.spanNs() <= 0) {
        throw new IllegalArgumentException("the " + (a == baseline ? "baseline" : "run")
            + " has no device operation: nothing to compare");
      }
    }
    return compare(Side.of(baseline), Side.of(run));
  }

  /**
   * Compares {@code run} with {@code baseline}. Refuses (an {@link IllegalArgumentException} with a one-line message)
   * runs that are not comparable: either without kernels, or no kernel name in common.
   */
  public static Result compare(Side baseline, Side run) {
    if (baseline == null || run == null) {
      throw new IllegalArgumentException("a comparison needs a baseline and a run");
    }
    if (baseline.kernels() == 0 || run.kernels() == 0) {
      throw new IllegalArgumentException("the " + (baseline.kernels() == 0 ? "baseline" : "run")
          + " has no kernels: nothing to compare");
    }
    Set<String> common = new TreeSet<>(baseline.kernelNames());
    common.retainAll(run.kernelNames());
    if (common.isEmpty()) {
      throw new IllegalArgumentException("the runs share no kernel name (baseline: " + names(baseline.kernelNames())
          + "; run: " + names(run.kernelNames()) + "): not the same job, nothing to compare");
    }
    List<String> notes = new ArrayList<>();
    boolean sameKernels = baseline.kernelNames().equals(run.kernelNames());
    Unit unit = baseline.iterations() > 0 && run.iterations() > 0 ? Unit.ITERATION
        : sameKernels ? Unit.KERNEL : Unit.SPAN;
    double bu = switch (unit) {
      case ITERATION -> baseline.iterations();
      case KERNEL -> baseline.kernels();
      case SPAN -> 1;
    };
    double ru = switch (unit) {
      case ITERATION -> run.iterations();
      case KERNEL -> run.kernels();
      case SPAN -> 1;
    };
    notes.add(switch (unit) {
      case ITERATION -> String.format(Locale.ROOT, "lost time per iteration (baseline %d marked iterations, run %d)",
          baseline.iterations(), run.iterations());
      case KERNEL -> String.format(Locale.ROOT, "lost time per kernel executed (baseline %d kernels, run %d; %s)",
          baseline.kernels(), run.kernels(), baseline.iterations() == run.iterations()
              ? "neither trace marks iterations" : "only one trace marks iterations");
      case SPAN -> "lost time as a share of each run's span: " + (baseline.iterations() > 0 || run.iterations() > 0
          ? "only one trace marks iterations" : "neither trace marks iterations") + " and their kernel names differ";
    });
    if (!sameKernels) {
      Set<String> onlyBase = new TreeSet<>(baseline.kernelNames());
      onlyBase.removeAll(run.kernelNames());
      Set<String> onlyRun = new TreeSet<>(run.kernelNames());
      onlyRun.removeAll(baseline.kernelNames());
      notes.add(String.format(Locale.ROOT, "kernel names: %d in both, %d only in the baseline%s, %d only in the run%s:"
          + " the runs do not do the same work", common.size(), onlyBase.size(),
          onlyBase.isEmpty() ? "" : " (" + names(onlyBase) + ")", onlyRun.size(),
          onlyRun.isEmpty() ? "" : " (" + names(onlyRun) + ")"));
    }
    if (!baseline.device().equals(run.device())) {
      notes.add("the runs ran on different devices (baseline: " + (baseline.device().isEmpty() ? "not named"
          : baseline.device()) + "; run: " + (run.device().isEmpty() ? "not named" : run.device()) + "): a cause that"
          + " changed may be the device's, not the job's");
    }
    // ns of lost time per unit for each share of the span (1 for SPAN: lost time stays a share of the span)
    double bk = unit == Unit.SPAN ? 1 : baseline.spanNs() / bu;
    double rk = unit == Unit.SPAN ? 1 : run.spanNs() / ru;
    double bTime = unit == Unit.SPAN ? baseline.spanNs() : baseline.spanNs() / bu;
    double rTime = unit == Unit.SPAN ? run.spanNs() : run.spanNs() / ru;
    double shareOf = unit == Unit.SPAN ? 1 : bTime;
    Map<Cause, Hypothesis> base = byCause(baseline.hypotheses());
    Map<Cause, Hypothesis> now = byCause(run.hypotheses());
    List<Change> changes = new ArrayList<>();
    for (Cause c : Cause.values()) {
      Hypothesis b = base.get(c);
      Hypothesis r = now.get(c);
      if (b == null && r == null) {
        continue;
      }
      double bl = b == null ? 0 : b.effect() * bk;
      double rl = r == null ? 0 : r.effect() * rk;
      double bh = b == null ? 0 : halfWidth(b) * bk;
      double rh = r == null ? 0 : halfWidth(r) * rk;
      double added = rl - bl;
      double half = Math.sqrt(bh * bh + rh * rh);
      double share = added / shareOf;
      Status s = b == null ? Status.NEW : r == null ? Status.GONE
          : added - half > 0 && share >= Thresholds.MIN_EFFECT ? Status.GREW : Status.STANDING;
      double confidence = r != null ? r.confidence() : b.confidence();
      double score = s == Status.NEW || s == Status.GREW ? Math.max(0, share) * confidence : 0;
      changes.add(new Change(c, s, bl, rl, added, added - half, added + half, share, confidence, score));
    }
    changes.sort(Comparator.comparingInt((Change x) -> x.changed() ? 0 : x.status() == Status.STANDING ? 1 : 2)
        .thenComparing(Comparator.comparingDouble((Change x) -> x.changed() ? x.score()
            : x.status() == Status.STANDING ? now.get(x.cause()).score() : base.get(x.cause()).score()).reversed()));
    return new Result(unit, bu, ru, bTime, rTime, rTime / bTime - 1, notes, changes);
  }

  /** Half the width of a hypothesis's 95% effect interval (its low end may be clipped at 0; the high end is not). */
  private static double halfWidth(Hypothesis h) {
    return Double.isFinite(h.effectHigh()) ? Math.max(0, h.effectHigh() - h.effect()) : 0;
  }

  private static Map<Cause, Hypothesis> byCause(List<Hypothesis> hs) {
    Map<Cause, Hypothesis> m = new EnumMap<>(Cause.class);
    for (Hypothesis h : hs) {
      m.putIfAbsent(h.cause(), h);
    }
    return m;
  }

  /** Up to three names, in order, and how many more. */
  private static String names(Set<String> names) {
    List<String> first = names.stream().sorted().limit(3).map(n -> "'" + n + "'").toList();
    return String.join(", ", first) + (names.size() > 3 ? " and " + (names.size() - 3) + " more" : "");
  }
}
