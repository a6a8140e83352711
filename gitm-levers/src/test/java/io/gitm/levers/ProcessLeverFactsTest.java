package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How process levers read what a black-box job's profile found: busy processes, FP32 GEMM time. */
class ProcessLeverFactsTest {
  private static LeverContext withFacts(Map<String, Double> facts) {
    return new LeverContext(null, Contexts.REAL_H200, List.of(), facts, false, Setup.shipped());
  }

  @Test
  void ompThreadsDividesTheCpusAmongTheJobsBusyProcessesAndExpectsMoreTheMoreThereAre() {
    Lever omp = Levers.byId("env-omp-threads");
    LeverContext nine = withFacts(Map.of(LeverContext.FACT_HOST_CPUS, 16.0, LeverContext.FACT_JOB_PROCESSES, 9.0));
    LeverContext four = withFacts(Map.of(LeverContext.FACT_HOST_CPUS, 16.0, LeverContext.FACT_JOB_PROCESSES, 4.0));
    LeverContext one = withFacts(Map.of(LeverContext.FACT_HOST_CPUS, 16.0));
    assertThat(omp.apply(Setup.shipped(), nine).environment()).containsEntry("OMP_NUM_THREADS", "1");
    assertThat(omp.apply(Setup.shipped(), four).environment()).containsEntry("OMP_NUM_THREADS", "4");
    assertThat(omp.apply(Setup.shipped(), one).environment()).containsEntry("OMP_NUM_THREADS", "16");
    assertThat(omp.check(nine).reason()).contains("across 9 busy processes: 1 threads each");
    assertThat(omp.expectedGain(nine).getAsDouble()).isGreaterThan(omp.expectedGain(four).getAsDouble());
    assertThat(omp.expectedGain(one)).isEmpty();
  }

  @Test
  void pinningAMultiProcessJobToOneCpuIsRefused() {
    Lever pin = Levers.byId("process-cpu-affinity");
    assertThat(pin.check(withFacts(Map.of(LeverContext.FACT_HOST_CPUS, 16.0, LeverContext.FACT_JOB_PROCESSES, 9.0)))
        .reason()).contains("9 busy processes");
    assertThat(pin.check(withFacts(Map.of(LeverContext.FACT_HOST_CPUS, 16.0))).applies()).isTrue();
  }

  @Test
  void pinningAPyTorchJobWithSeveralIntraOpThreadsOrDataLoaderWorkersToOneCpuIsRefused() {
    Lever pin = Levers.byId("process-cpu-affinity");
    assertThat(pin.check(withFacts(Map.of(LeverContext.FACT_HOST_CPUS, 16.0, LeverContext.FACT_TORCH_THREADS, 8.0)))
        .reason()).contains("8 intra-op threads");
    assertThat(pin.check(withFacts(Map.of(LeverContext.FACT_HOST_CPUS, 16.0, LeverContext.FACT_TORCH_THREADS, 1.0,
        LeverContext.FACT_TORCH_LOADER_WORKERS, 4.0))).reason()).contains("DataLoader workers");
    LeverContext askedWorkers = new LeverContext(null, Contexts.REAL_H200, List.of(), Map.of(
        LeverContext.FACT_HOST_CPUS, 16.0, LeverContext.FACT_TORCH_THREADS, 1.0), false,
        Setup.shipped().withEnvironment(LeverContext.TORCH_LEVERS_VARIABLE, "dl-workers=8"));
    assertThat(pin.check(askedWorkers).reason()).contains("DataLoader workers");
    assertThat(pin.check(withFacts(Map.of(LeverContext.FACT_HOST_CPUS, 16.0, LeverContext.FACT_TORCH_THREADS, 1.0)))
        .applies()).as("one intra-op thread and no workers").isTrue();
  }

  @Test
  void theTf32LeversShareOneArithmeticAndOtherLeversDeclareNone() {
    for (String id : List.of("env-torch-tf32", "env-tf32-override", "torch-tf32")) {
      assertThat(Levers.byId(id).numerics()).as(id).containsExactly(Lever.TF32_MATH);
    }
    for (String id : List.of("env-cuda-malloc-async", "torch-cudnn-benchmark", "torch-channels-last",
        "process-cpu-affinity")) {
      assertThat(Levers.byId(id).numerics()).as(id).isEmpty();
    }
  }

  @Test
  void tf32LeversExpectAmdahlsGainFromTheShareOfTimeInFp32Gemms() {
    LeverContext gemmBound = withFacts(Map.of(LeverContext.FACT_FP32_GEMM_SHARE, 0.9));
    for (String id : List.of("env-torch-tf32", "env-tf32-override")) {
      // 90% of the time made 4x faster: 1 / (0.1 + 0.9 / 4) - 1
      assertThat(Levers.byId(id).expectedGain(gemmBound).getAsDouble()).as(id).isCloseTo(1 / 0.325 - 1, within(1e-9));
      assertThat(Levers.byId(id).expectedGain(withFacts(Map.of()))).as(id).isEmpty();
      assertThat(Levers.byId(id).safety()).isEqualTo(SafetyClass.B);
    }
    assertThat(Levers.byId("env-torch-tf32").apply(Setup.shipped(), gemmBound).environment())
        .containsExactly(Map.entry("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1"));
  }

  @Test
  void allocatorLeversExpectTheirGainFromTheShareOfTimeInAllocationCalls() {
    LeverContext none = withFacts(Map.of(LeverContext.FACT_ALLOCATION_SHARE, 0.0));
    LeverContext much = withFacts(Map.of(LeverContext.FACT_ALLOCATION_SHARE, 0.5));
    Lever async = Levers.byId("env-cuda-malloc-async");
    assertThat(async.expectedGain(much).getAsDouble()).isGreaterThan(async.expectedGain(none).getAsDouble());
    assertThat(async.apply(Setup.shipped(), much).environment())
        .containsExactly(Map.entry("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync"));
  }
}
