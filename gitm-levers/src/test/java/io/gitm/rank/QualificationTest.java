package io.gitm.rank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.Ceilings;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Stream;
import io.gitm.levers.Levers;
import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.Work;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QualificationTest {
  @Test
  void aTraceWithoutKernelsRulesNothingOutAndSaysWhy() {
    TraceMeta meta = new TraceMeta("black-box process", ClockDomain.HOST_MONOTONIC, List.of(), Map.of());
    Analysis.Result a = Analysis.analyze(meta, List.of(), Ceilings.forTrace(meta, null).spec());
    Qualification q = Qualification.of(a, List.of(Candidate.prior(Levers.byId("env-omp-threads"), 1.3, 0.1)), 0.15);
    assertThat(q.reachable()).isTrue();
    assertThat(q.predictedHeadroom()).isCloseTo(0.3, within(1e-9));
    assertThat(q.diagnosis()).contains("holds no kernel").contains("the gates decide");
    assertThat(q.summary()).isEqualTo("no kernel traced: no floor; levers estimate 30%: target not ruled out");
    assertThat(q.fingerprint()).as("no share of a span nothing was traced in").containsKeys("kernels", "streams")
        .doesNotContainKeys("idle_pct", "kernel_time_pct", "launch_rate_per_s");
  }

  @Test
  void aTraceOfHostCallsAloneHasNoDeviceSpanToTakeSharesOf() {
    TraceMeta meta = new TraceMeta("black-box process", ClockDomain.HOST_MONOTONIC, List.of(), Map.of());
    List<TraceRecord> trace = List.of(new ApiCallRecord(ApiKind.OTHER, "cudaGetDeviceCount", 1, 0, 1_000, 5_000));
    Qualification q = Qualification.of(Analysis.analyze(meta, trace, Ceilings.forTrace(meta, null).spec()), List.of(),
        0.15);
    assertThat(q.fingerprint()).containsEntry("kernels", 0.0).doesNotContainKeys("idle_pct", "copy_time_pct");
    assertThat(QualificationTest.gemmBound().spanNs()).isPositive();
    assertThat(Qualification.of(gemmBound(), List.of(), 0.15).fingerprint()).as("a device span has its shares")
        .containsKeys("idle_pct", "kernel_time_pct");
  }

  /** 100 FP32 GEMMs of 2 ms back to back: the kernels fill the span and each runs at its fastest. */
  static Analysis.Result gemmBound() {
    TraceMeta meta = new TraceMeta("black-box process", ClockDomain.HOST_MONOTONIC, List.of(), Map.of());
    List<TraceRecord> trace = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      long start = 1_000_000L + i * 2_000_000L;
      trace.add(new KernelRecord("cutlass_80_simt_sgemm_256x128_8x4_nn_align1", 0, 7, i + 1, start,
          start + 2_000_000L, new Dim3(512, 1, 1), new Dim3(256, 1, 1), 128, 0, 0));
    }
    return Analysis.analyze(meta, trace, Ceilings.forTrace(meta, null).spec());
  }

  @Test
  void kernelsAtTheirFastestRuleOutTheTargetForLeversThatKeepTheKernels() {
    Qualification q = Qualification.of(gemmBound(), List.of(Candidate.prior(Levers.byId("env-omp-threads"), 1.3,
        0.1)), 0.15);
    assertThat(q.reachable()).isFalse();
    assertThat(q.floorHeadroom()).isLessThan(0.15);
    assertThat(q.diagnosis()).contains("is not reachable").contains("without changing the kernels")
        .doesNotContain("moves that floor");
  }

  @Test
  void aLeverThatReplacesTheKernelsMovesTheFloorByItsPrediction() {
    Qualification q = Qualification.of(gemmBound(), List.of(Candidate.prior(Levers.byId("env-tf32-override"), 3.0,
        2.0), Candidate.prior(Levers.byId("env-omp-threads"), 1.01, 0.02)), 0.15);
    assertThat(q.reachable()).isTrue();
    assertThat(q.floorHeadroom()).isGreaterThan(1.9);
    assertThat(q.diagnosis()).contains("looks reachable").contains("env-tf32-override, which replaces kernels, lowers"
        + " that floor by its predicted 200%");
  }

  static final KernelDef STREAM = new KernelDef("stream_copy",
      (c, a) -> new Work(0, Precision.FP32, (Long) a[0] / 2, (Long) a[0] / 2), (c, a) -> {
      });
  static final KernelDef COMPUTE = new KernelDef("fma_loop",
      (c, a) -> new Work((Double) a[0], Precision.FP32, 0, 0), (c, a) -> {
      });
  static final KernelModule MODULE = new KernelModule("qualification", "/kernels/qualification.cu",
      List.of(STREAM, COMPUTE));
  static final LaunchConfig BIG = new LaunchConfig(Dim3.of(132 * 64), Dim3.of(256), 0);

  /**
   * 40 iterations on the simulated H200, each a bandwidth-bound kernel over 256 MiB and a compute-bound kernel of
   * 2 TFLOP, both declaring their work; with {@code hostGapNs}, the host works that long and synchronizes after each
   * iteration (the device idles meanwhile), without it the kernels are queued back to back.
   */
  static Analysis.Result simulated(long hostGapNs) {
    List<TraceRecord> rs = new ArrayList<>();
    TraceMeta meta;
    try (SimDevice d = SimDevice.open(SimSpec.preset("h200"), 7, "")) {
      d.tracer().start(rs::add);
      meta = d.tracer().meta();
      Kernel stream = d.load(MODULE).kernel("stream_copy");
      Kernel compute = d.load(MODULE).kernel("fma_loop");
      Stream s = d.createStream(0);
      rs.add(d.sampler().sample());
      for (int i = 0; i < 40; i++) {
        d.launch(stream, BIG, s, 256L << 20);
        d.launch(compute, BIG, s, 2e12);
        if (hostGapNs > 0) {
          s.synchronize();
          d.hostWork(hostGapNs);
        }
      }
      s.synchronize();
      d.tracer().stop();
    }
    return Analysis.analyze(meta, rs, SimSpec.preset("h200").hardware());
  }

  @Test
  void onASimulatedJobWhoseKernelsFillTheDeviceTheDiagnosisNamesTheKernelFloor() {
    Analysis.Result a = simulated(0);
    Qualification q = Qualification.of(a, List.of(Candidate.prior(Levers.byId("pool-allocation"), 1.5, 0.2),
        Candidate.prior(Levers.byId("graph-capture"), 1.3, 0.2)), 0.15);
    assertThat(q.fingerprint().get("kernel_time_pct")).isGreaterThan(95);
    assertThat(q.fingerprint().get("compute_bound_kernel_time_pct")
        + q.fingerprint().get("memory_bound_kernel_time_pct")).isCloseTo(100, within(1e-6));
    assertThat(q.fingerprint().get("kernels_vs_roofline_x")).isGreaterThanOrEqualTo(1).isFinite();
    assertThat(q.reachable()).as(q.diagnosis()).isFalse();
    assertThat(q.floorHeadroom()).isLessThan(0.15);
    assertThat(q.predictedHeadroom()).as("the levers' priors alone would have promised it").isGreaterThan(0.15);
    assertThat(q.diagnosis()).contains("is not reachable").contains("of their fastest executions")
        .contains("its roofline bound").contains("without changing the kernels");
    assertThat(q.fingerprint().get("memory_headroom_pct")).as("from the state sample").isGreaterThan(0)
        .isLessThanOrEqualTo(100);
    assertThat(q.fingerprint().get("memory_used_peak_pct") + q.fingerprint().get("memory_headroom_pct"))
        .isCloseTo(100, within(1e-9));
    assertThat(gemmBound().facts()).as("no state samples, no memory figures").doesNotContainKey("memoryTotalBytes");
  }

  @Test
  void onTheSameJobWithTheDeviceIdleBetweenIterationsTheTargetIsReachable() {
    Qualification q = Qualification.of(simulated(200_000_000L), List.of(
        Candidate.prior(Levers.byId("graph-capture"), 1.3, 0.2)), 0.15);
    assertThat(q.fingerprint().get("idle_pct")).isGreaterThan(50);
    assertThat(q.floorHeadroom()).isGreaterThan(1);
    assertThat(q.reachable()).as(q.diagnosis()).isTrue();
    assertThat(q.diagnosis()).contains("looks reachable");
  }

  @Test
  void aKernelReplacingLeverLowersTheFloorOfDeclaredKernelsToTheirRooflineOnly() {
    Analysis.Result a = simulated(0);
    Qualification keep = Qualification.of(a, List.of(Candidate.prior(Levers.byId("pool-allocation"), 1.5, 0.2)),
        0.15);
    Qualification replace = Qualification.of(a, List.of(Candidate.prior(Levers.byId("math-mode-tf32"), 10, 1)),
        0.15);
    double roofline = a.graph().nodes().stream().mapToDouble(n -> n.lowerNs()).sum();
    assertThat(replace.floorHeadroom()).as("the roofline, not the lever's ×10, bounds declared kernels")
        .isCloseTo(Math.max(keep.floorHeadroom(), a.spanNs() / roofline - 1), within(1e-6))
        .isLessThan(0.15);
    assertThat(replace.reachable()).isFalse();
  }
}
