package io.gitm.scheduler;

import io.gitm.agents.Candidate;
import io.gitm.agents.TrialRecord;
import io.gitm.agents.Verdict;
import io.gitm.device.DeviceInfo;
import io.gitm.kernels.Lever;
import io.gitm.kernels.Levers;
import io.gitm.optimizer.attribution.Hypothesis;
import io.gitm.optimizer.monitor.Violation;
import io.gitm.optimizer.report.Report;
import io.gitm.planner.Graph;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns what a run measured and decided into the provenance report's model. */
final class ReportAssembly {
  private ReportAssembly() {}

  static Report build(String runId, String workload, DeviceInfo info, PhasePlan plan, double target, Report.Status status,
      Instant started, Instant ended, Profiler.Baseline b, Optimizer.Outcome o, List<TraceRecord> trace,
      Map<Phase, Duration> used, List<String> notes, String gitmVersion, boolean higherIsBetter) {
    Report.Device device = new Report.Device(info.name(), info.backend(), info.driverVersion(), info.kind());
    Report.Run run = new Report.Run(runId, workload, device, plan.budget().duration().toMillis() / 1000.0, target,
        status, gitmVersion, started, ended, false);
    List<Report.PhaseUse> phases = new ArrayList<>();
    for (PhasePlan.Window w : plan.windows()) {
      Duration u = used.getOrDefault(w.phase(), Duration.ZERO);
      phases.add(new Report.PhaseUse(w.phase().label().toLowerCase(java.util.Locale.ROOT),
          w.length().toMillis() / 1000.0, u.toMillis() / 1000.0));
    }
    Report.Metric metric = new Report.Metric(higherIsBetter ? "throughput" : "time", b.metric(), higherIsBetter);
    Report.Baseline baseline = new Report.Baseline(metric, b.throughput(), b.latency().p50(), b.latency().p99(),
        b.iterations());
    Report.Outcome outcome = null;
    Report.Qualification qual = null;
    List<Report.Violation> violations = new ArrayList<>();
    List<Report.Hypothesis> hypotheses = new ArrayList<>();
    List<Report.Trial> trials = new ArrayList<>();
    List<Report.Claim> claims = new ArrayList<>();
    List<Report.KernelResidual> residuals = new ArrayList<>();
    long spanStart = Long.MAX_VALUE;
    long spanEnd = Long.MIN_VALUE;
    for (TraceRecord r : trace) {
      if (!(r instanceof StateSample)) {
        spanStart = Math.min(spanStart, r.startNs());
        spanEnd = Math.max(spanEnd, r.endNs());
      }
    }
    if (spanEnd < spanStart) {
      spanStart = 0;
      spanEnd = 0;
    }
    if (o != null) {
      int vi = 1;
      for (Violation v : o.analysis().violations()) {
        violations.add(new Report.Violation("V" + vi++, v.invariant().description(), v.subject(), v.observed(),
            v.bound(), v.invariant() == Violation.Invariant.STREAM_CONCURRENCY ? "pairs"
                : v.invariant() == Violation.Invariant.MEMORY_TRAFFIC ? "B" : "ns",
            Math.max(0, v.howFar()), Math.min(v.count(), v.of()), v.of(), v.examples()));
      }
      int hi = 1;
      for (Hypothesis h : o.analysis().hypotheses()) {
        List<Report.Evidence> ev = h.evidence().stream()
            .map(e -> new Report.Evidence(e.kind(), e.summary(), e.data())).toList();
        hypotheses.add(new Report.Hypothesis("H" + hi++, h.cause().name(), h.cause().label(),
            new Report.Estimate(h.effect(), h.effectLow(), Math.max(h.effectLow(), h.effectHigh())),
            Math.min(1, Math.max(0, h.pValue())), h.confidence(), ev));
      }
      Map<String, Report.Quantity> fp = new LinkedHashMap<>();
      o.qualification().fingerprint().forEach((k, v) -> {
        if (Double.isFinite(v)) {
          fp.put(k, new Report.Quantity(v, unit(k)));
        }
      });
      double head = o.qualification().headroom();
      double u = 1.96 * o.qualification().predictedUncertainty();
      qual = new Report.Qualification(fp, new Report.Estimate(head, Math.max(0, head - u),
          Math.max(head, Math.min(o.qualification().floorHeadroom(), head + u))), o.qualification().reachable(),
          o.qualification().diagnosis());
      Map<String, Candidate> byId = new HashMap<>();
      o.candidates().forEach(c -> byId.put(c.id(), c));
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
            v.outcome().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + (v.detail().isEmpty() ? ""
                : ": " + v.detail()), v.blocks(), v.wallNanos() / 1e9));
        String set = setBy(t.candidate());
        if (!set.isEmpty()) {
          notes.add("trial " + (t.index() + 1) + " (" + String.join(" + ", t.levers()) + "):" + set.substring(1));
        }
        if (t.kept() && measured != null) {
          List<Report.EvidenceRef> refs = new ArrayList<>();
          for (int i = 0; i < o.analysis().hypotheses().size(); i++) {
            Hypothesis h = o.analysis().hypotheses().get(i);
            for (String id : t.levers()) {
              if (lever(id) != null && lever(id).addresses().contains(h.cause())) {
                refs.add(Report.EvidenceRef.hypothesis("H" + (i + 1), h.cause().label()));
              }
            }
          }
          for (String id : t.levers()) {
            String e = o.expectations().get(id);
            if (e != null) {
              refs.add(Report.EvidenceRef.trace("the traced run", spanStart, spanEnd, id + " was expected to help"
                  + " because " + e));
            }
          }
          if (refs.isEmpty()) {
            refs.add(Report.EvidenceRef.trace("gate trial " + (t.index() + 1), 0, 0,
                "no attributed cause names this lever; the claim rests on the gate's measurement alone"));
          }
          String desc = t.levers().stream().map(id -> lever(id) == null ? id : lever(id).description())
              .reduce((x, y) -> x + "; " + y).orElse("") + setBy(t.candidate());
          claims.add(new Report.Claim("C" + (claims.size() + 1), String.format(java.util.Locale.ROOT,
              "%s makes %s %.1f%% better (95%% CI %.1f%% to %.1f%%, p=%.2g)", String.join(" + ", t.levers()),
              workload, (v.gain() - 1) * 100, (v.ciLow() - 1) * 100, (v.ciHigh() - 1) * 100, v.pValue()), refs,
              new Report.Intervention(t.levers(), desc, t.index() + 1), measured));
        }
      }
      double gain = o.agent().totalGain();
      var conf = o.agent().confirmation().map(TrialRecord::verdict).filter(Verdict::complete);
      Report.Estimate g = conf.map(ReportAssembly::estimate).orElse(new Report.Estimate(gain - 1, gain - 1, gain - 1));
      // the final value as the confirmation gate measured it (untraced, like the gate's shipped arm); else the
      // traced baseline scaled by the chained gain
      double fin = conf.map(Verdict::candidateMedian).filter(Double::isFinite).orElse(higherIsBetter ? b.throughput() * gain : b.throughput() / gain);
      conf.ifPresent(v -> notes.add(String.format(java.util.Locale.ROOT, "the baseline above was measured in the"
          + " profile phase with tracing on; the confirmation gate measured the shipped setup at %.4g and the final"
          + " one at %.4g %s, both untraced", v.anchorMedian(), v.candidateMedian(), b.metric())));
      java.util.List<Double> errors = new ArrayList<>();
      for (TrialRecord t : o.agent().trials()) {
        Verdict v = t.verdict();
        if (t.kind() == TrialRecord.Kind.SINGLE && t.basis().equals("replay") && v.complete()
            && Double.isFinite(v.gain()) && v.gain() > 0) {
          errors.add(Math.abs(t.predictedGain() - v.gain()) / v.gain());
        }
      }
      if (!errors.isEmpty()) {
        java.util.Collections.sort(errors);
        notes.add(String.format(java.util.Locale.ROOT, "counterfactual replay predicted %d of the levers tried alone:"
            + " median error of the predicted speed against the measured one %.1f%% (the rest had only a prior)",
            errors.size(), 100 * errors.get(errors.size() / 2)));
      }
      if (conf.isEmpty() && !o.agent().keptLevers().isEmpty()) {
        notes.add("no confirmation gate ran (the budget had no room for it): the final figure is the traced baseline"
            + " times the gains chained from the kept trials, and its interval is not measured");
      }
      outcome = new Report.Outcome(fin, g, null, null, b.iterations());
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
      res.forEach((k, a) -> residuals.add(new Report.KernelResidual(k, a[0] / a[3], a[1] / a[3],
          Math.max(a[1] / a[3], a[2] / a[3]), (long) a[3])));
    }
    Report.Charts charts = new Report.Charts(timeline("before: the profile phase (shipped configuration)", trace),
        null, residuals, telemetry(trace));
    return new Report(Report.SCHEMA_VERSION, run, phases, baseline, outcome, qual, violations, hypotheses, trials,
        claims, charts, notes);
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
      if (r instanceof io.gitm.trace.KernelRecord k) {
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
        case io.gitm.trace.KernelRecord k when k.startNs() >= from && k.endNs() <= to ->
            lanes.computeIfAbsent("stream " + k.stream(), x -> new ArrayList<>())
                .add(new Report.Span(k.name(), k.startNs() - from, k.endNs() - from, Report.SpanKind.KERNEL));
        case io.gitm.trace.CopyRecord c when c.startNs() >= from && c.endNs() <= to ->
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
    s.sort(java.util.Comparator.comparingLong(StateSample::timeNs));
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
        out.add(new Report.Series(f.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '), f.unit(), t, v));
      }
    }
    return out;
  }

  /**
   * What gitm set for the process when it measured {@code candidate}, exactly: its environment variables and CPUs
   * (kept levers' included); empty for a setup that sets neither.
   */
  static String setBy(io.gitm.kernels.Setup candidate) {
    StringBuilder sb = new StringBuilder();
    if (!candidate.environment().isEmpty()) {
      sb.append("; the job ran with ");
      new java.util.TreeMap<>(candidate.environment()).forEach((k, v) -> sb.append(k).append('=').append(v)
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
