package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceRequest;
import io.gitm.device.MathMode;
import io.gitm.device.SchedulingMode;
import io.gitm.job.Job;
import io.gitm.job.ManagedJob;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceChange.KernelPrecision;
import io.gitm.workload.OutputDigest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The class-B math-mode levers, on a small GEMM job on the simulated h200. */
class MathModeLeverTest {
  @TempDir
  Path data;

  record Result(double metric, OutputDigest output, List<KernelRecord> gemms) {
  }

  Result run(Setup s) throws Exception {
    HftOnSim.Recording p = new HftOnSim.Recording();
    try (ManagedJob job = new ManagedJob(new GemmWorkload(), p, new DeviceRequest(0, SchedulingMode.AUTO,
        Map.of("jitter", "0")), data, GemmWorkload.STEPS); Job.Run r = job.open(s)) {
      double m = r.block();
      OutputDigest out = r.output();
      p.last().tracer().flush();
      synchronized (p.records) {
        return new Result(m, out, p.records.stream().filter(KernelRecord.class::isInstance)
            .map(KernelRecord.class::cast).toList());
      }
    }
  }

  static LeverContext gemmContext(Setup s) {
    return new LeverContext(new GemmWorkload().spec(), Contexts.SIM_H200, List.of(), Map.of(), false, s);
  }

  @Test
  void tf32AndBf16RunTheGemmsInTheirPrecisionFasterAndWithinTheTolerance() throws Exception {
    Result fp32 = run(Setup.shipped());
    assertThat(fp32.gemms()).hasSize(GemmWorkload.STEPS).allMatch(k -> k.name().endsWith("fp32"));
    for (String id : List.of("math-mode-tf32", "math-mode-bf16")) {
      Lever l = Levers.byId(id);
      assertThat(l.safety()).isEqualTo(SafetyClass.B);
      LeverContext c = gemmContext(Setup.shipped());
      assertThat(l.check(c).applies()).as(l.check(c).reason()).isTrue();
      Result r = run(l.apply(Setup.shipped(), c));
      String suffix = id.endsWith("tf32") ? "tf32" : "bf16";
      assertThat(r.gemms()).hasSize(GemmWorkload.STEPS).allMatch(k -> k.name().endsWith(suffix));
      long t = r.gemms().stream().mapToLong(k -> k.endNs() - k.startNs()).sum();
      long t32 = fp32.gemms().stream().mapToLong(k -> k.endNs() - k.startNs()).sum();
      assertThat(t).as(id + " GEMM time").isLessThan(t32);
      assertThat(r.output().sha256()).as(id + " changes numerics").isNotEqualTo(fp32.output().sha256());
      assertThat(r.output().maxRelativeDifference(fp32.output())).as(id)
          .isLessThanOrEqualTo(new GemmWorkload().spec().outputTolerance());
    }
  }

  @Test
  void mathModeLeversRefuseWhereTheyCannotHelpOrMayNotChangeNumerics() {
    Lever tf32 = Levers.byId("math-mode-tf32");
    assertThat(tf32.check(Contexts.hft(Setup.shipped())).reason()).contains("MATH_MODE");
    var noTolerance = new io.gitm.workload.WorkloadSpec("exact", "", List.of(),
        java.util.Set.of(io.gitm.workload.Knob.MATH_MODE), Map.of(), 0, "x/s", true);
    assertThat(tf32.check(new LeverContext(noTolerance, Contexts.SIM_H200, List.of(), Map.of(), false, null))
        .reason()).contains("no output tolerance");
    DeviceInfo volta = new DeviceInfo("nvidia", DeviceKind.REAL, 0, "Tesla V100", "GPU-1", "7.0", 80, 16L << 30,
        6 << 20, "580", 0, -5);
    assertThat(tf32.check(new LeverContext(new GemmWorkload().spec(), volta, List.of(), Map.of(), false, null))
        .applies()).isFalse();
    assertThat(tf32.check(new LeverContext(new GemmWorkload().spec(), Contexts.SIM_H200, List.of(),
        Map.of(LeverContext.FACT_GEMMS, 0.0), false, null)).reason()).contains("no GEMMs");
    Setup inTf32 = Setup.shipped().withConfig(Setup.shipped().config().withMathMode(MathMode.TF32));
    assertThat(tf32.check(gemmContext(inTf32)).applies()).isFalse();
    assertThat(Levers.byId("math-mode-bf16").check(gemmContext(inTf32)).applies()).isTrue();
  }

  @Test
  void theirCounterfactualRunsFp32KernelsInTheNewPrecision() {
    assertThat(Levers.byId("math-mode-tf32").counterfactual().orElseThrow().transforms())
        .containsExactly(new KernelPrecision(Precision.FP32, Precision.TF32));
    assertThat(Levers.byId("math-mode-bf16").counterfactual().orElseThrow().transforms())
        .containsExactly(new KernelPrecision(Precision.FP32, Precision.BF16));
  }
}
