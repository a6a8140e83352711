package io.gitm.analysis.attribution;

import static io.gitm.analysis.attribution.Thresholds.ALPHA;
import static io.gitm.analysis.attribution.Thresholds.MIN_EFFECT;
import static io.gitm.analysis.attribution.Thresholds.MIN_EVENTS;

import io.gitm.planner.Graph;
import io.gitm.stats.Aipw;
import io.gitm.stats.MultipleTesting;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Doubly robust (cross-fitted AIPW, {@link Aipw}) estimates of what a per-kernel condition does to the kernel, with
 * Benjamini–Hochberg ({@link MultipleTesting}) across the conditions estimated. Each condition has the outcome its
 * effect is on:
 *
 * <ul>
 *   <li><b>preceded by an allocation or free</b> and <b>preceded by a copy from pageable memory</b>: the device-idle
 *       gap before the kernel, {@code log(1 + gap in µs)} (the effect reads as a factor on 1 + gap). A blocking
 *       allocation or staged copy holds the host, so the kernel starts late; its own duration is not what they change.
 *   <li><b>overlapping a copy</b> (a copy record's interval overlaps the kernel's), <b>running at a throttled clock</b>
 *       (a clock-event reason that lowers the clock set, and the clock below its boost, in the state sample interval
 *       the kernel starts in), <b>first launch of its kernel name</b> and <b>sharing the device with a neighbour</b>
 *       (the state sample interval of the kernel's device that the kernel starts in begins with a sample whose
 *       {@link StateField#OTHER_PROCESSES} is above 0: another process had a compute context on the device): the
 *       kernel's residual, {@code ln(duration / upper bound)} from the monitor's residuals ({@code duration = upper +
 *       residual}; kernels without an upper bound are left out). The effect reads as a factor on the kernel's
 *       duration. A kernel outside the sampled span (before the first or after the last sample) counts as without
 *       the condition, as an unknown clock does.
 * </ul>
 *
 * <p>The neighbour condition needs the other-process fields in the state samples; the evidence says which case a
 * trace is: no sample holds them (a trace written before they were sampled, a Kineto import, a device whose process
 * list could not be read), no neighbour in any sample, or kernels with and without one (then the estimate, with the
 * samples that saw a neighbour).
 *
 * <p>Covariates: the previous kernel's duration, the kernel's grid size and its place in the trace (they drive both
 * whether a batch boundary, where allocations and copies happen, comes before a kernel and how long it and the gap
 * are); for the residual outcomes also the other residual conditions, so that a first launch at a throttled clock is
 * not credited to the launch (the neighbour condition among them only when a sample of the trace saw a neighbour). Each
 * estimate is added as evidence to the hypotheses of the causes it belongs to, when their detectors found one
 * (allocation → allocator stall; pageable copy → pageable copies; copy overlap → memory-bound below roofline and
 * contention, as an alternative explanation; throttled clock → the clock causes; neighbour → contention). A
 * first-launch effect that is significant after the adjustment and slows the kernel is the cold-start detector: each
 * first launch loses its duration times {@code 1 − 1/factor}.
 *
 * <p>As a detector it runs after the causes' detectors (it reads what they found): it owns {@link Cause#COLD_START}
 * and adds its estimates to the others' causes as evidence only.
 */
final class Conditions implements Detector {
  /** Kernels needed before a per-kernel condition's effect is estimated. */
  static final int MIN_KERNELS = 200;
  /**
   * The most kernels an estimate uses: a longer trace is sampled (seeded) down to about this many, which bounds the
   * cost (a million-kernel trace would take about 0.45 s of CPU per condition) at a standard error about
   * √(n/MAX_ROWS) times wider.
   */
  static final int MAX_ROWS = 1 << 17;
  /** The seed of the cross-fitting folds and of the sample. */
  static final long SEED = 0x5eedL;
  /** How sure a cold-start hypothesis is at most (a single effect estimate, no second signature). */
  static final double COLD_START_CERTAINTY = 0.6;

  /** A condition: what it is, which outcome its effect is on, and the causes its estimate is evidence for. */
  enum Condition {
    AFTER_ALLOC("preceded by an allocation or free", false, EnumSet.of(Cause.ALLOCATOR_STALL)),
    AFTER_PAGEABLE("preceded by a copy from pageable memory", false, EnumSet.of(Cause.PAGEABLE_COPIES)),
    OVERLAPS_COPY("overlapping a copy", true, EnumSet.of(Cause.MEMORY_BOUND_BELOW_ROOFLINE, Cause.CONTENTION)),
    THROTTLED("running at a throttled clock", true, EnumSet.of(Cause.CLOCK_DROP, Cause.THERMAL_THROTTLING,
        Cause.POWER_THROTTLING, Cause.POWER_BRAKE)),
    FIRST_LAUNCH("launched for the first time (the first launch of their kernel name)", true,
        EnumSet.of(Cause.COLD_START)),
    NEIGHBOUR("sharing the device with a neighbour", true, EnumSet.of(Cause.CONTENTION));

    final String label;
    /** Whether the outcome is the kernel's residual (else the idle gap before it). */
    final boolean residual;
    final Set<Cause> causes;

    Condition(String label, boolean residual, Set<Cause> causes) {
      this.label = label;
      this.residual = residual;
      this.causes = causes;
    }
  }

  /**
   * One condition's estimate.
   *
   * @param effect the estimate, or null when it was not attempted (then {@code reason} says why)
   * @param adjusted its Benjamini–Hochberg adjusted p-value over the conditions estimated (NaN when untestable)
   * @param sampledFrom the number of kernels the rows were sampled from when there were more than {@link #MAX_ROWS};
   *     0 when every kernel is a row
   * @param note what the evidence adds about the condition's data (the neighbour: the samples that saw one), or ""
   */
  record Estimate(Condition condition, Aipw.Effect effect, String reason, double adjusted, int sampledFrom,
      String note) {
    boolean significant() {
      return effect != null && effect.testable() && adjusted <= ALPHA;
    }
  }

    @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.COLD_START);
  }

  /** Estimates the conditions whose causes the detectors found (first launch always) and adds them as evidence. */
  @Override
  public void detect(Input in, Ledger out) {
    // the causes that may become a hypothesis: enough events and enough lost time
    double span = Math.max(1, in.to() - in.from());
    Set<Cause> found = EnumSet.noneOf(Cause.class);
    out.entries().forEach((c, l) -> {
      if (l.events() >= MIN_EVENTS && l.total() >= MIN_EFFECT * span) {
        found.add(c);
      }
    });
    List<Estimate> estimates = estimates(in, found);
    for (Estimate e : estimates) {
      if (e.condition() == Condition.FIRST_LAUNCH) {
        coldStart(in, e, out);
      }
      for (Cause c : e.condition().causes) {
        if (out.has(c)) {
          out.note(c, evidence(e, estimates.size()));
        }
      }
    }
  }

  /**
   * The estimates for the conditions whose causes are in {@code found} (the first launch always, since it is the
   * cold-start detector), in {@link Condition} order; empty when the trace has fewer than {@link #MIN_KERNELS} kernels.
   */
  static List<Estimate> estimates(Input in, Set<Cause> found) {
    return estimates(in, found, MAX_ROWS);
  }

  /** {@link #estimates(Input, Set)} with at most {@code maxRows} kernels per estimate. */
  static List<Estimate> estimates(Input in, Set<Cause> found, int maxRows) {
    int n = 0;
    for (Graph.Node g : in.graph().nodes()) {
      if (g.kind() == Graph.Kind.KERNEL) {
        n++;
      }
    }
    if (n < MIN_KERNELS) {
      return List.of();
    }
    Rows rows = Rows.of(in, n);
    if (n > maxRows) {
      rows = rows.sample(maxRows);
    }
    Neighbours nb = Neighbours.of(in.host().tenants);
    // the neighbour is a covariate of the other residual conditions only where some sample saw one (an all-false
    // column adds nothing, and a trace without one keeps the estimates it had before the process fields)
    List<Condition> residualConditions = nb.seen() > 0
        ? List.of(Condition.OVERLAPS_COPY, Condition.THROTTLED, Condition.FIRST_LAUNCH, Condition.NEIGHBOUR)
        : List.of(Condition.OVERLAPS_COPY, Condition.THROTTLED, Condition.FIRST_LAUNCH);
    Condition[] all = Condition.values();
    Attempt[] attempts = new Attempt[all.length];
    for (Condition c : all) {
      if (c == Condition.FIRST_LAUNCH || c.causes.stream().anyMatch(found::contains)) {
        attempts[c.ordinal()] = attempt(c, rows, nb, residualConditions);
      }
    }
    double[] p = new double[all.length];
    Arrays.fill(p, Double.NaN);
    for (Condition c : all) {
      Aipw.Effect e = attempts[c.ordinal()] == null ? null : attempts[c.ordinal()].effect();
      if (e != null && e.testable()) {
        p[c.ordinal()] = e.pValue();
      }
    }
    MultipleTesting.Adjusted adj = MultipleTesting.benjaminiHochberg(p, ALPHA);
    List<Estimate> out = new ArrayList<>();
    for (Condition c : all) {
      Attempt a = attempts[c.ordinal()];
      if (a != null && (a.effect() != null || a.reason() != null)) {
        out.add(new Estimate(c, a.effect(), a.reason(), adj.adjusted(c.ordinal()), rows.sampledFrom, a.note()));
      }
    }
    return out;
  }

  /** What estimating one condition gave: the effect, or why there is none; and the evidence's note, or "". */
  private record Attempt(Aipw.Effect effect, String reason, String note) {
    static Attempt because(String reason, String note) {
      return new Attempt(null, reason, note);
    }
  }

  /** The other tenants the state samples saw: samples with the other-process fields, and those with a neighbour. */
  private record Neighbours(int samples, int seen) {
    static Neighbours of(Map<Integer, Tenants> tenants) {
      int processSamples = 0;
      int neighbourSamples = 0;
      for (Tenants t : tenants.values()) {
        processSamples += t.others().length;
        for (double o : t.others()) {
          neighbourSamples += o > 0 ? 1 : 0;
        }
      }
      return new Neighbours(processSamples, neighbourSamples);
    }
  }

  /** Estimates condition {@code c} on {@code rows}, or says why it cannot. */
  private static Attempt attempt(Condition c, Rows rows, Neighbours nb, List<Condition> residualConditions) {
    String note = "";
    if (c == Condition.NEIGHBOUR) {
      if (nb.samples() == 0) {
        return Attempt.because("no state sample of the trace holds the other-process fields (OTHER_PROCESSES): a"
            + " trace written before they were sampled, a Kineto import, or a device whose process list could not"
            + " be read", note);
      }
      if (nb.seen() == 0) {
        return Attempt.because(String.format(Locale.ROOT, "no neighbour seen: all %d state samples with the"
            + " other-process fields show the job alone on its device", nb.samples()), note);
      }
      note = String.format(Locale.ROOT, "a neighbour in %d of %d state samples with the other-process fields",
          nb.seen(), nb.samples());
    }
    int arm = 0;
    int n = 0;
    for (int i = 0; i < rows.n; i++) {
      if (!c.residual || rows.hasResidual[i]) {
        n++;
        arm += rows.treated[c.ordinal()][i] ? 1 : 0;
      }
    }
    // Aipw's own bound, checked before the rows are copied: each fold's outcome model is fitted on the smaller arm's
    // rows outside the fold, which must outnumber its coefficients (all covariate columns and the intercept)
    int coefficients = rows.x.length + (c.residual ? residualConditions.size() - 1 : 0) + 1;
    int smaller = Math.min(arm, n - arm);
    int fitted = smaller - (smaller + Aipw.DEFAULT_FOLDS - 1) / Aipw.DEFAULT_FOLDS;
    if (fitted < coefficients + 1) {
      return Attempt.because(String.format(Locale.ROOT, "%d of %d kernels%s have the condition: the smaller arm is"
          + " too small for %d-fold cross-fitted outcome models of %d coefficients", arm, n,
          c.residual ? " with an upper bound" : "", Aipw.DEFAULT_FOLDS, coefficients), note);
    }
    if (c.residual) {
      return new Attempt(residualEffect(c, rows, residualConditions), null, note);
    }
    boolean gapTwins = Arrays.equals(rows.treated[Condition.AFTER_ALLOC.ordinal()],
        rows.treated[Condition.AFTER_PAGEABLE.ordinal()]);
    if (gapTwins) {
      // a batch boundary with both: the two effects cannot be told apart
      return Attempt.because("every kernel preceded by an allocation is also preceded by a pageable copy and the"
          + " other way round: the trace cannot tell their effects apart", note);
    }
    return new Attempt(Aipw.estimate(rows.x, rows.treated[c.ordinal()], rows.gap, Aipw.DEFAULT_FOLDS, SEED), null,
        note);
  }

  /** A residual condition's effect: on the kernels with an upper bound, the other residual conditions as covariates. */
  private static Aipw.Effect residualEffect(Condition c, Rows rows, List<Condition> residualConditions) {
    int m = 0;
    for (boolean b : rows.hasResidual) {
      m += b ? 1 : 0;
    }
    List<boolean[]> others = new ArrayList<>();
    for (Condition o : residualConditions) {
      if (o != c) {
        others.add(rows.treated[o.ordinal()]);
      }
    }
    double[][] x = rows.x;
    double[][] xs = new double[x.length + others.size()][m];
    boolean[] ts = new boolean[m];
    double[] ys = new double[m];
    int j = 0;
    for (int i = 0; i < rows.n; i++) {
      if (!rows.hasResidual[i]) {
        continue;
      }
      for (int v = 0; v < x.length; v++) {
        xs[v][j] = x[v][i];
      }
      for (int v = 0; v < others.size(); v++) {
        xs[x.length + v][j] = others.get(v)[i] ? 1 : 0;
      }
      ts[j] = rows.treated[c.ordinal()][i];
      ys[j] = rows.residual[i];
      j++;
    }
    return Aipw.estimate(xs, ts, ys, Aipw.DEFAULT_FOLDS, SEED);
  }

  /**
   * The cold-start detector: when the first-launch effect is significant after the adjustment and slows the kernel
   * (factor above 1), each first launch of a kernel name loses its duration times {@code 1 − 1/factor}.
   */
  private static void coldStart(Input in, Estimate e, Ledger out) {
    if (!e.significant() || !(e.effect().ate() > 0)) {
      return;
    }
    double factor = Math.exp(e.effect().ate());
    Lost l = out.lost(Cause.COLD_START);
    Set<String> seen = new HashSet<>();
    double lost = 0;
    for (Graph.Node g : in.graph().nodes()) {
      if (g.kind() == Graph.Kind.KERNEL && seen.add(g.name())) {
        double ns = g.durationNs() * (1 - 1 / factor);
        lost += ns;
        l.add(in, g.startNs(), ns);
      }
    }
    l.certainty(COLD_START_CERTAINTY);
    l.evidence(new Evidence("trace", String.format(Locale.ROOT,
        "%d kernel names, each first launch %.2f× as long as the same kernel later (doubly robust estimate): %.2f ms"
            + " lost to first launches", seen.size(), factor, lost / 1e6), Map.of("names", seen.size(), "factor",
        factor, "lostNs", lost)));
  }

  /**
   * One row per kernel (in start order): its outcomes (the idle gap before it, its residual when it has an upper
   * bound), its covariates (the previous kernel's duration, its grid, its place in the trace) and per condition
   * whether it has it.
   */
  private static final class Rows {
    int n;
    int sampledFrom;
    double[] gap;
    double[] residual;
    boolean[] hasResidual;
    final double[][] x;
    final boolean[][] treated;

    private Rows(int n) {
      this.n = n;
      gap = new double[n];
      residual = new double[n];
      hasResidual = new boolean[n];
      x = new double[3][n];
      treated = new boolean[Condition.values().length][n];
    }

    /** The rows of the trace's {@code n} kernels. */
    static Rows of(Input in, int n) {
      List<ApiCallRecord> allocs = new ArrayList<>();
      List<CopyRecord> pageable = new ArrayList<>();
      List<long[]> copies = new ArrayList<>();
      for (TraceRecord r : in.trace()) {
        if (r instanceof ApiCallRecord a && (a.kind() == ApiKind.ALLOC || a.kind() == ApiKind.FREE)) {
          allocs.add(a);
        } else if (r instanceof CopyRecord c) {
          if (c.srcKind() == MemoryKind.PAGEABLE || c.dstKind() == MemoryKind.PAGEABLE) {
            pageable.add(c);
          }
          copies.add(new long[] {c.startNs(), c.endNs()});
        }
      }
      allocs.sort(Comparator.comparingLong(ApiCallRecord::startNs));
      pageable.sort(Comparator.comparingLong(CopyRecord::startNs));
      copies.sort(Comparator.comparingLong(c -> c[0]));
      Rows rows = new Rows(n);
      rows.fill(in, allocs, pageable, copies);
      return rows;
    }

    private void fill(Input in, List<ApiCallRecord> allocs, List<CopyRecord> pageable, List<long[]> copies) {
      Map<Integer, Tenants> tenants = in.host().tenants;
      double[] residualNs = in.monitor().residualNs();
      Set<String> seen = new HashSet<>();
      long prevEnd = Long.MIN_VALUE;
      long prevDur = 0;
      long copyReach = Long.MIN_VALUE;
      int k = 0;
      int ai = 0;
      int pi = 0;
      int ci = 0;
      double span = Math.max(1, in.to() - in.from());
      for (Graph.Node g : in.graph().nodes()) {
        if (g.kind() != Graph.Kind.KERNEL) {
          continue;
        }
        long from = prevEnd == Long.MIN_VALUE ? g.startNs() : prevEnd;
        while (ai < allocs.size() && allocs.get(ai).endNs() < from) {
          ai++;
        }
        while (pi < pageable.size() && pageable.get(pi).endNs() < from) {
          pi++;
        }
        // copies that started before the kernel ends: the latest end among them decides an overlap from before
        while (ci < copies.size() && copies.get(ci)[0] < g.startNs()) {
          copyReach = Math.max(copyReach, copies.get(ci)[1]);
          ci++;
        }
        treated[Condition.AFTER_ALLOC.ordinal()][k] = ai < allocs.size() && allocs.get(ai).startNs() < g.startNs();
        treated[Condition.AFTER_PAGEABLE.ordinal()][k] = pi < pageable.size()
            && pageable.get(pi).startNs() < g.startNs();
        treated[Condition.OVERLAPS_COPY.ordinal()][k] = copyReach > g.startNs()
            || (ci < copies.size() && copies.get(ci)[0] < g.endNs());
        treated[Condition.THROTTLED.ordinal()][k] = in.clock().slowAt(g.startNs());
        treated[Condition.FIRST_LAUNCH.ordinal()][k] = seen.add(g.name());
        Tenants tn = tenants.get(g.device());
        treated[Condition.NEIGHBOUR.ordinal()][k] = tn != null && tn.sharedAt(g.startNs());
        // log scale: gaps run from a microsecond to milliseconds, and a few long ones would steer a linear model
        gap[k] = Math.log1p(Math.max(0, g.startNs() - from) / 1e3);
        double r = g.index() < residualNs.length ? residualNs[g.index()] : Double.NaN;
        hasResidual[k] = g.upperNs() > 0 && Double.isFinite(r) && g.upperNs() + r > 0;
        residual[k] = hasResidual[k] ? Math.log((g.upperNs() + r) / g.upperNs()) : 0;
        x[0][k] = Math.log1p(prevDur / 1e3);
        x[1][k] = Math.log1p(g.blocks());
        x[2][k] = (g.startNs() - in.from()) / span;
        prevEnd = Math.max(prevEnd, g.endNs());
        prevDur = g.durationNs();
        k++;
      }
    }

    /**
     * A seeded random sample of about {@code maxRows} of the rows (not every k-th: a job's kernels repeat with its
     * iteration's period).
     */
    Rows sample(int maxRows) {
      SplittableRandom random = new SplittableRandom(SEED);
      int[] keep = new int[n];
      int m = 0;
      for (int i = 0; i < n; i++) {
        if (random.nextInt(n) < maxRows) {
          keep[m++] = i;
        }
      }
      Rows s = new Rows(m);
      s.sampledFrom = n;
      s.gap = pick(gap, keep, m);
      s.residual = pick(residual, keep, m);
      for (int v = 0; v < x.length; v++) {
        s.x[v] = pick(x[v], keep, m);
      }
      for (int i = 0; i < m; i++) {
        s.hasResidual[i] = hasResidual[keep[i]];
      }
      for (int c = 0; c < treated.length; c++) {
        for (int i = 0; i < m; i++) {
          s.treated[c][i] = treated[c][keep[i]];
        }
      }
      return s;
    }
  }

  private static double[] pick(double[] v, int[] keep, int m) {
    double[] out = new double[m];
    for (int i = 0; i < m; i++) {
      out[i] = v[keep[i]];
    }
    return out;
  }

  /** One estimate as evidence. */
  static Evidence evidence(Estimate e, int conditions) {
    Condition c = e.condition();
    String outcome = c.residual ? "the kernel's duration over its upper bound" : "the idle gap before the kernel";
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("condition", c.label);
    data.put("outcome", c.residual ? "residual" : "gap");
    String note = e.note().isEmpty() ? "" : "; " + e.note();
    if (!e.note().isEmpty()) {
      data.put("note", e.note());
    }
    if (e.effect() == null || !e.effect().testable()) {
      String why = e.effect() == null ? e.reason() : e.effect().reason();
      data.put("testable", false);
      data.put("reason", why);
      return new Evidence("aipw", "the effect of a kernel being " + c.label + " on " + outcome
          + " could not be estimated: " + why + note, data);
    }
    Aipw.Effect a = e.effect();
    data.put("testable", true);
    data.put("factor", Math.exp(a.ate()));
    data.put("ciLow", Math.exp(a.ciLow()));
    data.put("ciHigh", Math.exp(a.ciHigh()));
    data.put("p", a.pValue());
    data.put("pAdjusted", e.adjusted());
    data.put("significant", e.significant());
    data.put("treated", a.nTreated());
    data.put("n", a.n());
    if (e.sampledFrom() > 0) {
      data.put("sampledFrom", e.sampledFrom());
    }
    String what = c.residual
        ? "take %.2f× as long over their upper bound (duration / upper bound"
        : "wait %.2f× as long for the device (1 + gap in µs";
    return new Evidence("aipw", String.format(Locale.ROOT, "kernels %s " + what + "; 95%% CI %.2f× to %.2f×, p=%.2g,"
        + " BH-adjusted %.2g over %d conditions: %s; doubly robust, %d-fold cross-fitted, %d of %d kernels treated%s;"
        + " unadjusted %.2f×)%s", c.label, Math.exp(a.ate()), Math.exp(a.ciLow()), Math.exp(a.ciHigh()),
        a.pValue(), e.adjusted(), conditions, e.significant() ? "significant" : "not significant", Aipw.DEFAULT_FOLDS,
        a.nTreated(), a.n(), e.sampledFrom() > 0 ? " (a seeded sample of the trace's " + e.sampledFrom() + ")" : "",
        Math.exp(a.naiveDifference()), note), data);
  }

  /**
   * One device's other tenants over time: the times of its state samples that hold {@link StateField#OTHER_PROCESSES}
   * (in order) and that count. Interval i runs from sample i to sample i + 1.
   */
  record Tenants(long[] time, double[] others) {
    /** Per device, from state samples that hold the field; a device without such a sample has none. */
    static Map<Integer, Tenants> of(List<StateSample> samples) {
      Map<Integer, List<StateSample>> by = new HashMap<>();
      for (StateSample s : samples) {
        by.computeIfAbsent(s.device(), d -> new ArrayList<>()).add(s);
      }
      Map<Integer, Tenants> out = new HashMap<>();
      by.forEach((d, xs) -> {
        xs.sort(Comparator.comparingLong(StateSample::timeNs));
        long[] t = new long[xs.size()];
        double[] o = new double[xs.size()];
        for (int i = 0; i < t.length; i++) {
          t[i] = xs.get(i).timeNs();
          o[i] = xs.get(i).get(StateField.OTHER_PROCESSES);
        }
        out.put(d, new Tenants(t, o));
      });
      return out;
    }

    /** Whether the sample interval holding {@code t} began with another process on the device; outside, not. */
    boolean sharedAt(long t) {
      int i = Arrays.binarySearch(time, t);
      i = i >= 0 ? i : -i - 2;
      return i >= 0 && i + 1 < time.length && others[i] > 0;
    }
  }
}
