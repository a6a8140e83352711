package io.gitm.run;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Evidence;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.monitor.Violation;
import io.gitm.device.DeviceInfo;
import io.gitm.levers.Lever;
import io.gitm.levers.Levers;
import io.gitm.levers.Setup;
import io.gitm.planner.Graph;
import io.gitm.rank.Candidate;
import io.gitm.rank.Qualification;
import io.gitm.report.Report;
import io.gitm.search.TrialRecord;
import io.gitm.search.Verdict;
import io.gitm.stats.Sample;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.OutputScore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns what a run measured and decided into the provenance report's model. */
final class ReportAssembly {
  private ReportAssembly() {}

  /**
   * How the run ended, as the report tells it.
   *
   * @param used each phase's wall time, as far as known
   * @param notes what a reader should know, in order; the report adds its own after them
   */
  record Ending(Report.Status status, Instant started, Instant ended, PhasePlan plan, Map<Phase, Duration> used,
      List<String> notes) {}

  /**
   * The report of a run of {@code req}'s job.
   *
   * @param o what the optimization did, or null when it failed
   */
  static Report build(RunLoop.Request req, Profiled p, Outcome o, AfterTrace after, Ending e) {
    String workload = req.job().name();
    boolean higherIsBetter = req.job().higherIsBetter();
    Profiler.Baseline b = p.baseline();
    DeviceInfo info = p.info();
    Report.Device device = new Report.Device(info.name(), info.backend(), info.driverVersion(), info.kind());
    Report.Run run = new Report.Run(p.run().id(), workload, device, e.plan().budget().duration().toMillis() / 1000.0,
        req.target().fraction(), e.status(), req.gitmVersion(), e.started(), e.ended(), false,
        req.job().input().map(i -> new Report.Input(i.path(), i.sha256(), i.bytes(), i.format(), i.found()))
            .orElse(null), req.job().score().map(ReportAssembly::score).orElse(null));
    Report.Metric metric = new Report.Metric(higherIsBetter ? "throughput" : "time", b.metric(), higherIsBetter);
    Report.Baseline baseline = new Report.Baseline(metric, b.throughput(), b.latency().p50(), b.latency().p99(),
        b.iterations());
    List<TraceRecord> trace = p.records();
    List<String> notes = new ArrayList<>(e.notes());
    if (o == null) {
      Report.Charts charts = new Report.Charts(before(trace), null, List.of(), telemetry(trace),
          ReportBreakdowns.of(trace, List.of()));
      return new Report(Report.SCHEMA_VERSION, run, phases(e), baseline, null, null, List.of(), List.of(),
          List.of(), List.of(), charts, notes);
    }
    Tried tried = tried(o, workload, span(trace), notes);
    Report.Outcome outcome = outcome(o, b, higherIsBetter, tried.byId(), notes);
    Report.Timeline afterTimeline = after.records().isEmpty() ? null : timeline("after: the final configuration ("
        + String.join(" + ", o.agent().keptLevers()) + "), traced once the search had ended", after.records());
    Report.Charts charts = new Report.Charts(before(trace), afterTimeline, residuals(o), telemetry(trace),
        ReportBreakdowns.of(trace, o.analysis().hypotheses()));
    return new Report(Report.SCHEMA_VERSION, run, phases(e), baseline, outcome, qualification(o), violations(o),
        hypotheses(o), tried.trials(), tried.claims(), charts, notes);
  }

  private static Report.Score score(OutputScore s) {
    return new Report.Score(s.method(), s.model(), s.columns(),
        s.rows().stream().map(r -> new Report.ScoreRow(r.name(), r.values())).toList());
  }

  /** The set-up before the phases (when there was any), then the five phases, each planned against used time. */
  private static List<Report.PhaseUse> phases(Ending e) {
    List<Report.PhaseUse> phases = new ArrayList<>();
    double setUp = e.plan().setUp().toMillis() / 1000.0;
    if (setUp > 0) {
      phases.add(new Report.PhaseUse("set-up", setUp, setUp));
    }
    for (PhasePlan.Window w : e.plan().windows()) {
      Duration u = e.used().getOrDefault(w.phase(), Duration.ZERO);
      phases.add(new Report.PhaseUse(w.phase().label().toLowerCase(Locale.ROOT), w.length().toMillis() / 1000.0,
          u.toMillis() / 1000.0));
    }
    return phases;
  }

  private static Report.Timeline before(List<TraceRecord> trace) {
    return timeline("before: the profile phase (shipped configuration)", trace);
  }

  /** The traced span of the device's and host's work (state samples left out): {start, end}, or {0, 0}. */
  private static long[] span(List<TraceRecord> trace) {
    long spanStart = Long.MAX_VALUE;
    long spanEnd = Long.MIN_VALUE;
    for (TraceRecord r : trace) {
      if (!(r instanceof StateSample)) {
        spanStart = Math.min(spanStart, r.startNs());
        spanEnd = Math.max(spanEnd, r.endNs());
      }
    }
    return spanEnd < spanStart ? new long[] {0, 0} : new long[] {spanStart, spanEnd};
  }

  private static List<Report.Violation> violations(Outcome o) {
    List<Report.Violation> violations = new ArrayList<>();
    int vi = 1;
    for (Violation v : o.analysis().violations()) {
      violations.add(new Report.Violation("V" + vi++, v.invariant().description(), v.subject(), v.observed(),
          v.bound(), v.invariant() == Violation.Invariant.STREAM_CONCURRENCY ? "pairs"
              : v.invariant() == Violation.Invariant.MEMORY_TRAFFIC ? "B" : "ns",
          Math.max(0, v.howFar()), Math.min(v.count(), v.of()), v.of(), v.examples()));
    }
    return violations;
  }

  private static List<Report.Hypothesis> hypotheses(Outcome o) {
    List<Report.Hypothesis> hypotheses = new ArrayList<>();
    int hi = 1;
    for (Hypothesis h : o.analysis().hypotheses()) {
      List<Report.Evidence> ev = h.evidence().stream()
          .map(e -> new Report.Evidence(e.kind(), e.summary(), e.data())).toList();
      hypotheses.add(new Report.Hypothesis("H" + hi++, h.cause().name(), h.cause().label(),
          new Report.Estimate(h.effect(), h.effectLow(), Math.max(h.effectLow(), h.effectHigh())),
          Math.min(1, Math.max(0, h.pValue())), h.confidence(), ev));
    }
    return hypotheses;
  }

  private static Report.Qualification qualification(Outcome o) {
    Qualification q = o.ranked().qualification();
    Map<String, Report.Quantity> fp = new LinkedHashMap<>();
    q.fingerprint().forEach((k, v) -> {
      if (Double.isFinite(v)) {
        fp.put(k, new Report.Quantity(v, unit(k)));
      }
    });
    double head = q.headroom();
    double u = 1.96 * q.predictedUncertainty();
    return new Report.Qualification(fp, new Report.Estimate(head, Math.max(0, head - u),
        Math.max(head, Math.min(q.floorHeadroom(), head + u))), q.reachable(), q.diagnosis());
  }

  /** The report's trials and claims, with the candidates they were tried as. */
  private record Tried(List<Report.Trial> trials, List<Report.Claim> claims, Map<String, Candidate> byId) {}

  /**
   * Every trial of the search, then the interrupted run's trials the resumed search did not come to; a claim for
   * each kept one. What gitm set for a trial's process goes to {@code notes}.
   */
  private static Tried tried(Outcome o, String workload, long[] span, List<String> notes) {
    Map<String, Candidate> byId = new HashMap<>();
    o.ranked().candidates().forEach(c -> byId.put(c.id(), c));
    List<Report.Trial> trials = new ArrayList<>();
    List<Report.Claim> claims = new ArrayList<>();
    for (TrialRecord t : o.agent().trials()) {
      Verdict v = t.verdict();
      Report.Estimate measured = v.complete() && Double.isFinite(v.gain()) ? estimate(v) : null;
      Double p = measured == null ? null : Double.isFinite(v.pValue()) ? v.pValue() : 1.0;
      double unc = 0;
      for (String id : t.levers()) {
        Candidate c = byId.get(id);
        if (c != null) {
          unc = Math.max(unc, c.uncertainty());
        }
      }
      trials.add(new Report.Trial(t.index() + 1, t.levers(), safety(t.levers()), t.predictedGain() - 1, unc,
          measured, p, t.kept() && measured != null ? Report.Verdict.KEPT : Report.Verdict.ROLLED_BACK,
          checkOf(t) + v.outcome().name().toLowerCase(Locale.ROOT).replace('_', ' ')
              + (v.detail().isEmpty() ? "" : ": " + v.detail()), v.blocks(), v.wallNanos() / 1e9));
      String set = setBy(t.candidate());
      if (!set.isEmpty()) {
        notes.add("trial " + (t.index() + 1) + " (" + String.join(" + ", t.levers()) + "):" + set.substring(1));
      }
      if (t.kept() && measured != null) {
        claims.add(claim("C" + (claims.size() + 1), o, t, workload, measured, span));
      }
    }
    int next = trials.size() + 1;
    for (TrialRecord t : o.applied().earlierNotReused()) {
      trials.add(notReused(next++, t));
    }
    return new Tried(trials, claims, byId);
  }

  private static Report.Claim claim(String id, Outcome o, TrialRecord t, String workload, Report.Estimate measured,
      long[] span) {
    Verdict v = t.verdict();
    List<Report.EvidenceRef> refs = claimEvidence(o, t, span[0], span[1]);
    String desc = t.levers().stream().map(l -> lever(l) == null ? l : lever(l).description())
        .reduce((x, y) -> x + "; " + y).orElse("") + setBy(t.candidate());
    return new Report.Claim(id, String.format(Locale.ROOT,
        "%s makes %s %.1f%% better (95%% CI %.1f%% to %.1f%%, p=%.2g)", String.join(" + ", t.levers()),
        workload, (v.gain() - 1) * 100, (v.ciLow() - 1) * 100, (v.ciHigh() - 1) * 100, v.pValue()), refs,
        new Report.Intervention(t.levers(), desc, t.index() + 1), measured);
  }

  /** An interrupted run's trial that the resumed search did not come to, as the report's trial {@code number}. */
  private static Report.Trial notReused(int number, TrialRecord t) {
    Verdict v = t.verdict();
    Report.Estimate measured = v.complete() && Double.isFinite(v.gain()) ? estimate(v) : null;
    return new Report.Trial(number, t.levers(), safety(t.levers()), t.predictedGain() - 1, 0, measured,
        measured == null ? null : Double.isFinite(v.pValue()) ? v.pValue() : 1.0, Report.Verdict.ROLLED_BACK,
        "measured by the interrupted run as its trial " + (t.index() + 1) + " on top of "
            + (t.anchorLevers().isEmpty() ? "the shipped setup" : String.join(" + ", t.anchorLevers()))
            + " (" + v.outcome().name().toLowerCase(Locale.ROOT).replace('_', ' ')
            + "); the resumed search did not come to it, so it is not part of the result", v.blocks(),
        v.wallNanos() / 1e9);
  }

  /** The final figure and gain, with what a reader should know about how they were measured. */
  private static Report.Outcome outcome(Outcome o, Profiler.Baseline b, boolean higherIsBetter,
      Map<String, Candidate> byId, List<String> notes) {
    if (o.ranked().reused()) {
      notes.add("resumed run: the levers were ranked as the interrupted run ranked them (from its journal), and its "
          + o.agent().reusedTrials() + " completed trials were reused, not run again");
    }
    double gain = o.agent().totalGain();
    Optional<Verdict> conf = o.agent().confirmation().map(TrialRecord::verdict).filter(Verdict::complete);
    Report.Estimate g = conf.map(ReportAssembly::estimate).orElse(new Report.Estimate(gain - 1, gain - 1, gain - 1));
    // the final value as the confirmation gate measured it (untraced, like the gate's shipped arm); else the
    // traced baseline scaled by the chained gain
    double fin = conf.map(Verdict::candidateMedian).filter(Double::isFinite)
        .orElse(higherIsBetter ? b.throughput() * gain : b.throughput() / gain);
    conf.ifPresent(v -> notes.add(String.format(Locale.ROOT, "the baseline above was measured in the"
        + " profile phase with tracing on; the confirmation gate measured the shipped setup at %.4g and the final"
        + " one at %.4g %s, both untraced", v.anchorMedian(), v.candidateMedian(), b.metric())));
    replayAccuracy(o, byId).ifPresent(notes::add);
    if (conf.isEmpty() && !o.agent().keptLevers().isEmpty()) {
      notes.add("no confirmation gate ran (the budget had no room for it): the final figure is the traced baseline"
          + " times the gains chained from the kept trials, and its interval is not measured");
    }
    return new Report.Outcome(fin, g, null, null, b.iterations());
  }

  /** Each kernel's measured time against its modelled bounds, averaged over its executions. */
  private static List<Report.KernelResidual> residuals(Outcome o) {
    Map<String, double[]> res = new LinkedHashMap<>();
    for (Graph.Node n : o.analysis().graph().nodes()) {
      if (n.kind() == Graph.Kind.KERNEL) {
        double[] a = res.computeIfAbsent(n.name(), k -> new double[4]);
        a[0] += n.durationNs();
        a[1] += n.lowerNs();
        a[2] += n.upperNs();
        a[3]++;
      }
    }
    List<Report.KernelResidual> residuals = new ArrayList<>();
    res.forEach((k, a) -> residuals.add(new Report.KernelResidual(k, a[0] / a[3], a[1] / a[3],
        Math.max(a[1] / a[3], a[2] / a[3]), (long) a[3])));
    return residuals;
  }

  /**
   * What a kept trial's claim cites, each once: every hypothesis a lever of the trial addresses, with the invariant
   * violations behind it (and the trace slice of a violating execution) or, for a cause no invariant measures, the
   * traced span its evidence was measured over; the profile fact each lever's own expectation was read from; and the
   * gate's measurement.
   */
  static List<Report.EvidenceRef> claimEvidence(Outcome o, TrialRecord t, long spanStart, long spanEnd) {
    Map<String, Report.EvidenceRef> refs = new LinkedHashMap<>();
    List<Hypothesis> hs = o.analysis().hypotheses();
    List<Violation> vs = o.analysis().violations();
    List<String> overSpan = new ArrayList<>();
    for (int i = 0; i < hs.size(); i++) {
      Hypothesis h = hs.get(i);
      List<String> by = t.levers().stream().filter(id -> lever(id) != null && lever(id).addresses().contains(h.cause()))
          .toList();
      if (by.isEmpty()) {
        continue;
      }
      String hid = "H" + (i + 1);
      refs.putIfAbsent("H:" + hid, Report.EvidenceRef.hypothesis(hid, String.join(" and ", by) + " address"
          + (by.size() == 1 ? "es " : " ") + h.cause().label()));
      boolean cited = false;
      for (int k = 0; k < vs.size(); k++) {
        Violation v = vs.get(k);
        if (!measures(v.invariant(), h.cause())) {
          continue;
        }
        cited = true;
        String vid = "V" + (k + 1);
        refs.putIfAbsent("V:" + vid, Report.EvidenceRef.violation(vid, "behind " + hid));
        long[] w = v.examples().isEmpty() ? null : window(o.analysis().graph(), v.examples().getFirst());
        if (w != null) {
          refs.putIfAbsent("T:" + vid, Report.EvidenceRef.trace(v.examples().getFirst(), w[0], w[1],
              "an execution that broke " + vid));
        }
      }
      if (!cited && spanEnd > spanStart) {
        String ev = h.evidence().stream().map(Evidence::summary).filter(x -> !x.isBlank())
            .findFirst().orElse(h.cause().label());
        overSpan.add(hid + ": " + ev);
      }
    }
    if (!overSpan.isEmpty()) {
      // one reference to the profiled span, however many hypotheses were measured over it
      refs.put("T:span", Report.EvidenceRef.trace("the profiled run", spanStart, spanEnd, "measured over this span: "
          + String.join("; ", overSpan)));
    }
    for (String id : t.levers()) {
      String e = o.ranked().expectations().get(id);
      if (e != null) {
        refs.putIfAbsent("F:" + id, Report.EvidenceRef.fact(id, id + " was expected to help because " + e));
      }
    }
    Verdict v = t.verdict();
    refs.put("G", Report.EvidenceRef.gate(t.index() + 1, String.format(Locale.ROOT, "%d blocks; median"
        + " %.4g against %.4g on the anchor, gain %+.1f%% (95%% CI %+.1f%% to %+.1f%%), p=%.2g",
        v.blocks(), v.candidateMedian(), v.anchorMedian(), (v.gain() - 1) * 100, (v.ciLow() - 1) * 100,
        (v.ciHigh() - 1) * 100, v.pValue())));
    return new ArrayList<>(refs.values());
  }

  /**
   * How well counterfactual replay predicted the levers tried alone, on the delta itself (p and m the predicted and
   * measured gains as fractions, 0.12 = 12%): the median |p − m| in percentage points beside what a do-nothing
   * predictor (p = 0) scores; the median |p − m| / |m| over the trials whose measured gain was significant (its 95%
   * interval excludes 0); and the coverage of the predicted interval p ± 1.96 σ (σ the candidate's uncertainty), the
   * share of measured gains inside it. Empty when no lever tried alone had a replay prediction.
   */
  static Optional<String> replayAccuracy(Outcome o, Map<String, Candidate> byId) {
    List<Double> abs = new ArrayList<>();
    List<Double> none = new ArrayList<>();
    List<Double> rel = new ArrayList<>();
    int covered = 0;
    for (TrialRecord t : o.agent().trials()) {
      Verdict v = t.verdict();
      if (t.kind() != TrialRecord.Kind.SINGLE || !t.basis().equals("replay") || !v.complete()
          || !Double.isFinite(v.gain()) || !Double.isFinite(t.predictedGain())) {
        continue;
      }
      double p = t.predictedGain() - 1;
      double m = v.gain() - 1;
      abs.add(Math.abs(p - m));
      none.add(Math.abs(m));
      if ((v.ciLow() > 1 || v.ciHigh() < 1) && m != 0) {
        rel.add(Math.abs(p - m) / Math.abs(m));
      }
      Candidate c = byId.get(t.levers().getFirst());
      double u = c == null ? 0 : 1.96 * c.uncertainty();
      if (Math.abs(p - m) <= u) {
        covered++;
      }
    }
    if (abs.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(String.format(Locale.ROOT, "counterfactual replay predicted %d of the"
        + " levers tried alone (the rest had only a prior): median error on the gain %.1f percentage points (a"
        + " do-nothing prediction of 0%% would score %.1f); %s; %d of %d measured gains (%.0f%%) inside the predicted"
        + " 95%% interval", abs.size(), 100 * median(abs), 100 * median(none), rel.isEmpty()
            ? "no measured gain was significant, so no relative error"
            : String.format(Locale.ROOT, "median relative error %.0f%% over the %d whose measured gain was"
                + " significant", 100 * median(rel), rel.size()), covered, abs.size(), 100.0 * covered / abs.size()));
  }

  private static double median(List<Double> xs) {
    return Sample.median(xs.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** Whether violations of {@code invariant} are evidence for {@code cause}. */
  static boolean measures(Violation.Invariant invariant, Cause cause) {
    return switch (invariant) {
      case STREAM_CONCURRENCY -> cause == Cause.FALSE_SERIALIZATION;
      case MEMORY_TRAFFIC -> cause == Cause.EXCESS_TRAFFIC;
      case KERNEL_TIME -> switch (cause) {
        case MEMORY_BOUND_BELOW_ROOFLINE, CONTENTION, MEMORY_DEGRADED, THERMAL_THROTTLING, POWER_THROTTLING,
            POWER_BRAKE, CLOCK_DROP -> true;
        default -> false;
      };
    };
  }

  private static final Pattern EXAMPLE = Pattern.compile("corr (\\d+) at (-?\\d+) ns");

  /**
   * The trace window of the execution a violation's example names ({@code kernel 'k' stream 3 corr 12 at 5000 ns}):
   * its start and end in the analysed graph; null when not found or empty.
   */
  static long[] window(Graph g, String example) {
    Matcher m = EXAMPLE.matcher(example);
    if (!m.find()) {
      return null;
    }
    long corr = Long.parseLong(m.group(1));
    long start = Long.parseLong(m.group(2));
    for (Graph.Node n : g.nodes()) {
      if (n.correlationId() == corr && n.startNs() == start) {
        return n.endNs() > start ? new long[] {start, n.endNs()} : null;
      }
    }
    return null;
  }

  /**
   * What a trial that cannot move the anchor checked, ahead of its outcome: a member check gates a passed
   * combination against the same without that member, so "kept" there means the member matters.
   */
  static String checkOf(TrialRecord t) {
    if (t.kind() != TrialRecord.Kind.MEMBER) {
      return "";
    }
    String on = t.anchorLevers().isEmpty() ? "the shipped setup" : String.join(" + ", t.anchorLevers());
    if (t.levers().size() > 1) {
      // the combination itself, journaled after its members' checks dropped one or more of them
      return "combination " + String.join(" + ", t.levers()) + " on top of " + on + ", not adopted whole: its member"
          + " checks dropped what did not matter (see the member checks and the subset trial): ";
    }
    return "member check, " + t.levers().getFirst() + " against the same without it, on top of " + on + " ("
        + (t.verdict().outcome() == Verdict.Outcome.KEPT ? "it matters; kept through its combination" : "dropped")
        + "): ";
  }

  /** A verdict's gain as a delta with its interval; an end that is not finite becomes the gain itself. */
  private static Report.Estimate estimate(Verdict v) {
    double g = v.gain() - 1;
    double lo = Double.isFinite(v.ciLow()) ? Math.min(g, v.ciLow() - 1) : g;
    double hi = Double.isFinite(v.ciHigh()) ? Math.max(g, v.ciHigh() - 1) : g;
    return new Report.Estimate(g, lo, hi);
  }

  private static Lever lever(String id) {
    try {
      return Levers.byId(id);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String safety(List<String> ids) {
    String worst = "A";
    for (String id : ids) {
      Lever l = lever(id);
      if (l != null && l.safety().name().compareTo(worst) > 0) {
        worst = l.safety().name();
      }
    }
    return worst;
  }

  private static String unit(String key) {
    if (key.endsWith("_pct")) {
      return "%";
    }
    if (key.endsWith("_us")) {
      return "µs";
    }
    if (key.endsWith("_per_s")) {
      return "1/s";
    }
    if (key.endsWith("_x")) {
      return "×";
    }
    return "";
  }

  /** The first 30 ms of device work after the first iteration, per stream. */
  static Report.Timeline timeline(String caption, List<TraceRecord> trace) {
    Map<String, List<Report.Span>> lanes = new LinkedHashMap<>();
    long first = Long.MAX_VALUE;
    for (TraceRecord r : trace) {
      if (r instanceof KernelRecord k) {
        first = Math.min(first, k.startNs());
      }
    }
    if (first == Long.MAX_VALUE) {
      return null;
    }
    long from = first;
    long to = from + 30_000_000L;
    for (TraceRecord r : trace) {
      switch (r) {
        case KernelRecord k when k.startNs() >= from && k.endNs() <= to ->
            lanes.computeIfAbsent("stream " + k.stream(), x -> new ArrayList<>())
                .add(new Report.Span(k.name(), k.startNs() - from, k.endNs() - from, Report.SpanKind.KERNEL));
        case CopyRecord c when c.startNs() >= from && c.endNs() <= to ->
            lanes.computeIfAbsent("stream " + c.stream(), x -> new ArrayList<>())
                .add(new Report.Span("copy " + c.kind(), c.startNs() - from, c.endNs() - from, Report.SpanKind.COPY));
        default -> {
        }
      }
    }
    List<Report.Lane> out = new ArrayList<>();
    lanes.forEach((k, v) -> out.add(new Report.Lane(k, v)));
    return new Report.Timeline(caption, out);
  }

  static List<Report.Series> telemetry(List<TraceRecord> trace) {
    List<StateSample> s = new ArrayList<>();
    for (TraceRecord r : trace) {
      if (r instanceof StateSample x) {
        s.add(x);
      }
    }
    s.sort(Comparator.comparingLong(StateSample::timeNs));
    List<Report.Series> out = new ArrayList<>();
    if (s.isEmpty()) {
      return out;
    }
    long t0 = s.getFirst().timeNs();
    for (StateField f : new StateField[] {StateField.SM_CLOCK, StateField.POWER, StateField.TEMPERATURE,
        StateField.MEMORY_USED}) {
      List<Double> t = new ArrayList<>();
      List<Double> v = new ArrayList<>();
      for (StateSample x : s) {
        if (x.has(f) && Double.isFinite(x.get(f))) {
          t.add((x.timeNs() - t0) / 1e9);
          v.add(x.get(f));
        }
      }
      if (!t.isEmpty()) {
        out.add(new Report.Series(f.name().toLowerCase(Locale.ROOT).replace('_', ' '), f.unit(), t, v));
      }
    }
    return out;
  }

  /**
   * What gitm set for the process when it measured {@code candidate}, exactly: its environment variables and CPUs
   * (kept levers' included); empty for a setup that sets neither.
   */
  static String setBy(Setup candidate) {
    StringBuilder sb = new StringBuilder();
    if (!candidate.environment().isEmpty()) {
      sb.append("; the job ran with ");
      new TreeMap<>(candidate.environment()).forEach((k, v) -> sb.append(k).append('=').append(v)
          .append(' '));
      sb.setLength(sb.length() - 1);
      sb.append(" set by gitm");
    }
    if (!candidate.cpus().isEmpty()) {
      sb.append(sb.isEmpty() ? "; the job ran" : ",").append(" pinned to CPUs ").append(candidate.cpus());
    }
    return sb.toString();
  }
}
