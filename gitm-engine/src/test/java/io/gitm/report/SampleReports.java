package io.gitm.report;

import io.gitm.report.Report.Baseline;
import io.gitm.report.Report.Charts;
import io.gitm.report.Report.Claim;
import io.gitm.report.Report.Device;
import io.gitm.report.Report.Estimate;
import io.gitm.report.Report.Evidence;
import io.gitm.report.Report.EvidenceRef;
import io.gitm.report.Report.Hypothesis;
import io.gitm.report.Report.Intervention;
import io.gitm.report.Report.KernelResidual;
import io.gitm.report.Report.Lane;
import io.gitm.report.Report.Metric;
import io.gitm.report.Report.Outcome;
import io.gitm.report.Report.PhaseUse;
import io.gitm.report.Report.Qualification;
import io.gitm.report.Report.Quantity;
import io.gitm.report.Report.Run;
import io.gitm.report.Report.Series;
import io.gitm.report.Report.Span;
import io.gitm.report.Report.SpanKind;
import io.gitm.report.Report.Status;
import io.gitm.report.Report.Timeline;
import io.gitm.report.Report.Trial;
import io.gitm.report.Report.Verdict;
import io.gitm.report.Report.Violation;
import io.gitm.trace.DeviceKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;

/**
 * Hand-built reports for tests and documentation: a realistic hft-lob run on the simulated H200 with invented
 * figures (marked as a sample), the same run with hostile names in every text field, and a bare run with no data.
 */
final class SampleReports {
  private SampleReports() {}

  /** Names that break a page or a table when not escaped. */
  static final List<String> HOSTILE = List.of(
      "<script>alert(1)</script>",
      "\"><img src=x onerror=alert(1)>",
      "a|b`c`\nd",
      "x\\|y | z",
      "**bold** _it_ [link](http://evil.example) &amp; $x$",
      "</title><script>alert(2)</script>",
      "' onmouseover='alert(3)",
      "]]><!-- <svg onload=alert(4)>");

  static final Instant START = Instant.parse("2026-11-30T00:49:42Z");

  /** The sample for documentation: a plausible run, every figure invented. */
  static Report sample() {
    return build(UnaryOperator.identity(), true);
  }

  /**
   * The sample with every name, id and sentence from the data prefixed by one of {@link #HOSTILE}, on the
   * simulated device.
   */
  static Report hostile() {
    UnaryOperator<String> n = s -> HOSTILE.get(Math.floorMod(s.hashCode(), HOSTILE.size())) + " " + s;
    return build(n, false, score(n));
  }

  /** A run interrupted right after the profile phase: no qualification, trials, claims, charts or telemetry. */
  static Report bare(DeviceKind kind) {
    Run run = new Run("20261130-004942-hft-lob-d202", "hft-lob", new Device(kind == DeviceKind.SIMULATED
        ? "Simulated NVIDIA H200 (preset h200)" : "NVIDIA H200", kind == DeviceKind.SIMULATED ? "sim" : "nvidia",
        kind == DeviceKind.SIMULATED ? "h200" : "580.95.05", kind), 120, 0.15, Status.INTERRUPTED, "0.1.0-SNAPSHOT",
        START, START.plusSeconds(11), false);
    return new Report(run, List.of(new PhaseUse("profile", 10, 9.6), new PhaseUse("attribute", 20, 1.2)),
        new Baseline(new Metric("throughput", "messages/s", true), 12.17e6, 1.302, 1.850, 123), null, null, List.of(),
        List.of(), List.of(), List.of(), null, List.of("Interrupted by the user during the attribute phase."));
  }

  /** An ordered map of the given names and values. */
  static Map<String, Object> data(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  /** What the sample's (invented) input held. */
  private static Map<String, Object> sampleFound(UnaryOperator<String> n) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("messages", 51_234_567);
    m.put("instruments", 2);
    m.put("symbols", List.of(n.apply("AAPL"), "MSFT"));
    m.put("framing", "LENGTH_PREFIXED");
    m.put("priceLevelsNeeded", 412);
    m.put("liveOrdersNeeded", 20_417);
    return m;
  }

  /** The sample with an (invented) output score, as a run on a labelled input has one. */
  static Report scored() {
    return build(UnaryOperator.identity(), true, score(UnaryOperator.identity()));
  }

  /** An invented score: two rows, one of them undefined in a column. */
  static Report.Score score(UnaryOperator<String> n) {
    return new Report.Score(n.apply("KITTI object benchmark AP over 3 of 3 labelled frames"),
        n.apply("seeded, untrained weights"), List.of(n.apply("objects"), n.apply("BEV AP R40")),
        List.of(new Report.ScoreRow(n.apply("Car easy"), List.of(4.0, 12.5)),
            new Report.ScoreRow(n.apply("Cyclist hard"), java.util.Arrays.asList(0.0, null))));
  }

  static Report build(UnaryOperator<String> n, boolean sample) {
    return build(n, sample, null);
  }

  static Report build(UnaryOperator<String> n, boolean sample, Report.Score score) {
    Run run = new Run(n.apply("20261130-004942-hft-lob-d202"), n.apply("hft-lob"),
        new Device(n.apply("Simulated NVIDIA H200 (preset h200)"), "sim", n.apply("h200"), DeviceKind.SIMULATED),
        120, 0.15, Status.TARGET_NOT_REACHABLE, "0.1.0-SNAPSHOT", START, START.plusMillis(100_900), sample,
        new Report.Input(n.apply("/data/itch/20191230.BX_ITCH_50.gz"),
            "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8", 1_234_567_890L,
            n.apply("ITCH 5.0, gzip, 2-byte length prefixes"), sampleFound(n)), score);

    List<PhaseUse> phases = List.of(new PhaseUse("profile", 10, 9.6), new PhaseUse("attribute", 20, 14.2),
        new PhaseUse("rank", 30, 21.7), new PhaseUse("apply", 40, 52.3), new PhaseUse("report", 20, 3.1));

    Metric metric = new Metric("throughput", n.apply("messages/s"), true);
    Baseline baseline = new Baseline(metric, 12.17e6, 1.302, 1.850, 123);
    Outcome outcome = new Outcome(13.41e6, new Estimate(0.102, 0.079, 0.124), 1.181, 1.622, 118);

    Map<String, Quantity> fingerprint = new LinkedHashMap<>();
    fingerprint.put(n.apply("kernel time, share of the iteration"), new Quantity(0.71, "fraction"));
    fingerprint.put("copy time, share of the iteration", new Quantity(0.10, "fraction"));
    fingerprint.put("host gaps, share of the iteration", new Quantity(0.19, "fraction"));
    fingerprint.put("mean kernel time over its roofline upper bound", new Quantity(1.09, "ratio"));
    fingerprint.put("launches per iteration", new Quantity(8, "count"));
    fingerprint.put("host-to-device bytes per iteration", new Quantity(1.6, "MB"));
    Qualification qualification = new Qualification(fingerprint, new Estimate(0.115, 0.084, 0.146), false,
        n.apply("kernels run on average within 9% of their roofline upper bounds; the gap is host-side: pageable"
            + " copies (6.4% of the iteration), allocator stalls (3.3%) and launch gaps (2.1%); the levers can recover"
            + " at most 11.5% (95% CI 8.4% to 14.6%), below the 15% target"));

    String lobBook = n.apply("lob_book");
    String lobFeatures = n.apply("lob_features");
    String lobDecode = n.apply("lob_decode");
    String streams = n.apply("stream 7 ↔ stream 13");
    String v1 = n.apply("V1");
    String v2 = n.apply("V2");
    String v3 = n.apply("V3");
    List<Violation> violations = List.of(
        new Violation(v1, "kernel-time", lobBook, 418.2, 310.0, "µs", 0.349, 119, 123,
            List.of("kernel#1042", "kernel#1050", "kernel#1058", "kernel#1066", "kernel#1074", "kernel#1082",
                "kernel#1090", "kernel#1098", "kernel#1106", "kernel#1114")),
        new Violation(v2, "stream-concurrency", streams, 0, 142, "µs overlap", 1.0, 123, 123,
            List.of(n.apply("kernel#1043"), "kernel#1044")),
        new Violation(v3, "memory-traffic", lobFeatures, 48.1, 33.6, "MB", 0.432, 123, 123, List.of("kernel#1045")));

    String h1 = n.apply("H1");
    String h2 = n.apply("H2");
    String h3 = n.apply("H3");
    String h4 = n.apply("H4");
    List<Hypothesis> hypotheses = List.of(
        new Hypothesis(h1, "PAGEABLE_COPIES", n.apply("pageable copies"), new Estimate(0.064, 0.049, 0.078), 0.0002,
            0.93, List.of(
                new Evidence("trace", n.apply("host-to-device copies of 1.6 MB from pageable memory run at 11.8 GB/s;"
                    + " the calibrated pinned rate is 52.4 GB/s"), data("copies", 492, "meanRateGBs", 11.8,
                        "pinnedRateGBs", 52.4)),
                new Evidence("aipw", "iterations whose copies the driver staged took 0.083 ms longer",
                    data("effectMs", 0.083, "ciLowMs", 0.064, "ciHighMs", 0.101)))),
        new Hypothesis(h2, "ALLOCATOR_STALL", "allocator stall", new Estimate(0.033, 0.021, 0.046), 0.001, 0.88,
            List.of(new Evidence("granger", n.apply("device allocations per batch Granger-cause iteration latency"),
                data("F", 14.2, "lag", 1, "p", 0.0003, "records", List.of("api#311", "api#319"))))),
        new Hypothesis(h3, "LAUNCH_BOUND_HOST", "launch-bound host", new Estimate(0.021, 0.006, 0.035), 0.011, 0.61,
            List.of(new Evidence("trace", "the device idles 21 µs on average between kernels waiting for a launch",
                data("meanGapUs", 21.0)))),
        new Hypothesis(h4, "FALSE_SERIALIZATION", "false serialization", new Estimate(0.012, -0.003, 0.026), 0.09, 0.34,
            List.of(new Evidence("invariant", "feature and routing work on streams 7 and 13 never overlap",
                data("violation", "V2")))));

    String pinned = n.apply("pinned-host-memory");
    String pool = n.apply("allocator-pool");
    List<Trial> trials = List.of(
        new Trial(1, List.of(pinned), "A", 0.075, 0.020, new Estimate(0.069, 0.051, 0.086), 0.0001, Verdict.KEPT,
            n.apply("gain significant (p < 0.001) and output identical (sha256 match)"), 8, 9.8),
        new Trial(2, List.of(pool), "A", 0.038, 0.015, new Estimate(0.031, 0.019, 0.044), 0.0004, Verdict.KEPT,
            "gain significant (p < 0.001) and output identical (sha256 match)", 8, 9.1),
        new Trial(3, List.of(n.apply("stream-priority-high")), "A", 0.012, 0.015, new Estimate(0.004, -0.009, 0.017),
            0.52, Verdict.ROLLED_BACK, "gain not significant (p 0.52 ≥ 0.05)", 8, 8.7),
        new Trial(4, List.of("graph-capture"), "A", 0.045, 0.025, new Estimate(-0.018, -0.030, -0.006), 0.004,
            Verdict.ROLLED_BACK, "slower: the graph is instantiated again every batch because the batch size varies",
            8, 10.4),
        new Trial(5, List.of("block-size-256", "shared-carveout-50"), "B", 0.022, 0.012,
            new Estimate(0.022, 0.008, 0.035), 0.003, Verdict.ROLLED_BACK,
            n.apply("output differs: feature digest changed (max abs diff 3.1e-7 > tolerance 0)"), 8, 9.6),
        new Trial(6, List.of(n.apply("copy-compute-overlap")), "A", 0.030, 0.018, null, null, Verdict.ROLLED_BACK,
            "the job failed (CUDA_ERROR_ILLEGAL_ADDRESS in lob_features); the anchor configuration was restored", 2,
            4.7));

    List<Claim> claims = List.of(
        new Claim(n.apply("C1"), n.apply("Host batches copied from pageable memory cost 6.4% of each iteration;"
            + " pinning the host buffers recovered 6.9%"),
            List.of(EvidenceRef.hypothesis(h1, n.apply("copies staged by the driver")),
                EvidenceRef.trace(n.apply("stream 7"), 1_000_000, 1_181_000, "a pageable host-to-device copy blocking"
                    + " the host")),
            new Intervention(List.of(pinned), n.apply("host staging buffers allocated as pinned memory"), 1),
            new Estimate(0.069, 0.051, 0.086)),
        new Claim("C2", "Device allocations on every batch stall the host; a stream-ordered pool recovered 3.1%",
            List.of(EvidenceRef.hypothesis(h2, null), EvidenceRef.trace("host", 1_190_000, 1_232_000,
                n.apply("cuMemAlloc and cuMemFree between batches"))),
            new Intervention(List.of(pool), "per-batch device memory taken from a stream-ordered pool", 2),
            new Estimate(0.031, 0.019, 0.044)),
        new Claim("C3", n.apply("lob_book runs 35% beyond its roofline upper bound; no lever of the library acts on it"
            + " without changing the kernel"),
            List.of(EvidenceRef.violation(v1, "119 of 123 launches"), EvidenceRef.violation(v3, null)), null, null),
        new Claim("C4", "The 15% target is out of reach on this job: at most 11.5% is recoverable",
            List.of(EvidenceRef.hypothesis(h3, null), EvidenceRef.hypothesis(h4, "not significant"),
                EvidenceRef.violation(v2, null)), null, null));

    List<KernelResidual> residuals = new ArrayList<>();
    residuals.add(new KernelResidual(lobBook, 418_200, 212_000, 310_000, 123));
    residuals.add(new KernelResidual(lobFeatures, 151_300, 88_000, 131_000, 123));
    residuals.add(new KernelResidual(lobDecode, 39_800, 31_000, 44_000, 123));
    residuals.add(new KernelResidual(n.apply("lob_mlp"), 62_400, 51_000, 70_500, 123));
    residuals.add(new KernelResidual(n.apply("lob_route_hist"), 8_900, 4_100, 7_600, 123));
    residuals.add(new KernelResidual(n.apply("lob_route_chunks"), 3_100, 2_400, 4_800, 123));
    residuals.add(new KernelResidual(n.apply("lob_route_scan"), 2_700, 1_900, 3_500, 123));
    residuals.add(new KernelResidual(n.apply("lob_route_scatter"), 22_600, 14_800, 21_000, 123));
    residuals.add(new KernelResidual(n.apply("calibrate_copy (fixture)"), 850, 900, 1_400, 4));

    Random rnd = new Random(42);
    Timeline before = timeline(n, rnd, false);
    Timeline after = timeline(n, rnd, true);
    List<Series> telemetry = telemetry(n, new Random(7));

    List<String> notes = List.of(
        n.apply("Every figure comes from the simulated device's model; gains on a real H200 will differ."),
        "Trial 6 left no measurement: the job failed and the anchor configuration was restored.",
        "Latency figures leave out the first iteration, which carries one-time costs.");
    return new Report(run, phases, baseline, outcome, qualification, violations, hypotheses, trials, claims,
        new Charts(before, after, residuals, telemetry, breakdowns(n)), notes);
  }

  /** Invented breakdowns of the shipped configuration's trace, tied to the invented hypotheses. */
  private static BreakdownChart breakdowns(UnaryOperator<String> n) {
    String s13 = n.apply("device 0 stream 13");
    String s14 = "device 0 stream 14";
    return new BreakdownChart("all (the default: the trace has no ProfilerStep annotations): the whole trace",
        9_840_000, 2_210_000, 6_930_000, 700_000, List.of(new BreakdownChart.Part("COMPUTATION", 6_410_000),
            new BreakdownChart.Part("COMPUTATION overlapping MEMORY", 520_000),
            new BreakdownChart.Part("MEMORY", 700_000)), null,
        List.of(new BreakdownChart.StreamIdle(s13, 1_310_000, 420_000, 480_000),
            new BreakdownChart.StreamIdle(s14, 2_950_000, 60_000, 3_900_000)),
        List.of(new BreakdownChart.Queue(s13, 1.4, 1, 6), new BreakdownChart.Queue(s14, 0.6, 0, 2)),
        List.of(new BreakdownChart.Part(n.apply("(no annotation)"), 7_450_000)),
        List.of("idle is 22.5% of the window's device span (2.210 ms): pageable copies (cause #1, 6.4% of the"
            + " span), then allocator stall (#2), then launch-bound host (#3), then false serialization (#4); lever"
            + " pinned-host-memory addresses it",
            n.apply("compute is 70.4% of the window's device span (6.930 ms): no ranked cause explains it (it could"
            + " be memory-bound below roofline, excess memory traffic, contention)")),
        new BreakdownChart.PathChart(9_840_000, 9_610_000, false, List.of(
            new BreakdownChart.Part("HOST_OP", 2_150_000), new BreakdownChart.Part("LAUNCH", 530_000),
            new BreakdownChart.Part("KERNEL", 6_930_000), new BreakdownChart.Part("SYNC", 0),
            new BreakdownChart.Part("IDLE", 0), new BreakdownChart.Part("DEPENDENCY", 0)), List.of(
            new BreakdownChart.PathItem(n.apply("lob_route_scan"), "KERNEL", 2, 2_810_000),
            new BreakdownChart.PathItem(n.apply("cudaMemcpyAsync"), "HOST_OP", 4, 1_320_000))));
  }

  /** Two iterations of hft-lob on its streams: copies, the eight kernels, and the host's API calls. */
  private static Timeline timeline(UnaryOperator<String> n, Random rnd, boolean after) {
    String[] kernels = {"lob_decode", "lob_route_hist", "lob_route_chunks", "lob_route_scan", "lob_route_scatter",
        "lob_book", "lob_features", "lob_mlp"};
    long[] meanNs = {39_800, 8_900, 3_100, 2_700, 22_600, 418_200, 151_300, 62_400};
    List<Span> s7 = new ArrayList<>();
    List<Span> s13 = new ArrayList<>();
    List<Span> host = new ArrayList<>();
    long t = 1_000_000;
    for (int it = 0; it < 2; it++) {
      long copy = after ? 61_000 : 181_000;
      s7.add(new Span(n.apply("memcpy HtoD " + (after ? "(pinned)" : "(pageable)")), t, t + copy, SpanKind.COPY));
      host.add(new Span("cuMemcpyHtoD", t, t + copy + 3_000, SpanKind.OTHER));
      t += copy;
      if (!after) {
        host.add(new Span(n.apply("cuMemAlloc"), t + 2_000, t + 24_000, SpanKind.OTHER));
        host.add(new Span("cuMemFree", t + 25_000, t + 43_000, SpanKind.OTHER));
        t += 43_000;
      }
      long t13 = 0;
      for (int k = 0; k < kernels.length; k++) {
        long gap = after ? 9_000 : 21_000;
        t += gap + rnd.nextInt(4_000);
        host.add(new Span("cuLaunchKernel", t - 6_000, t - 1_500, SpanKind.OTHER));
        for (int i = 0; i < 12; i++) {
          long a = t - 6_000 + i * 110L;
          host.add(new Span("cuPointerGetAttribute", a, a + 60, SpanKind.OTHER));
        }
        long d = (long) (meanNs[k] * (after && k >= 5 ? 0.98 : 1.0) * (0.97 + 0.06 * rnd.nextDouble()));
        String name = n.apply(kernels[k]);
        if (k == 6 && after) {
          t13 = t - meanNs[5];
          s13.add(new Span(name, t13, t13 + d, SpanKind.KERNEL));
          continue;
        }
        if (k == 6) {
          s13.add(new Span(name, t, t + d, SpanKind.KERNEL));
        } else {
          s7.add(new Span(name, t, t + d, SpanKind.KERNEL));
        }
        t += d;
      }
      s7.add(new Span("memcpy DtoH", t + 4_000, t + 16_000, SpanKind.COPY));
      host.add(new Span("cuStreamSynchronize", t, t + 18_000, SpanKind.OTHER));
      t += 30_000;
    }
    return new Timeline(
        after ? n.apply("iterations 61–62 with the kept levers") : "iterations 61–62 of the baseline",
        List.of(new Lane(n.apply("stream 7"), s7), new Lane("stream 13", s13), new Lane(n.apply("host"), host)));
  }

  /** Two samples a second over the run: SM clock, power, temperature, memory used. */
  private static List<Series> telemetry(UnaryOperator<String> n, Random rnd) {
    List<Double> t = new ArrayList<>();
    List<Double> clock = new ArrayList<>();
    List<Double> power = new ArrayList<>();
    List<Double> temp = new ArrayList<>();
    List<Double> mem = new ArrayList<>();
    double tc = 41;
    for (int i = 0; i <= 200; i++) {
      double s = i / 2.0;
      t.add(s);
      double load = s < 9.6 ? 0.55 : s < 45.5 ? 0.35 : 0.62;
      clock.add((double) Math.round(1980 - (s > 70 ? 45 : 0) - rnd.nextInt(3) * 15));
      power.add(Math.round((160 + 380 * load + rnd.nextGaussian() * 12) * 10) / 10.0);
      tc += (38 + 40 * load - tc) * 0.05;
      temp.add(Math.round(tc * 10) / 10.0);
      mem.add(s < 45.5 ? 3.1 : 2.4);
    }
    return List.of(new Series(n.apply("SM clock"), "MHz", t, clock), new Series("board power", "W", t, power),
        new Series("GPU temperature", "°C", t, temp), new Series("device memory used", "GiB", t, mem));
  }
}
