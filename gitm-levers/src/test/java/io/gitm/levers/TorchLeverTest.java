package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.attribution.Hypothesis;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The framework levers' applicability from the hook's facts, their setups and their expected gains. */
class TorchLeverTest {
  /** A PyTorch training job on a GPU as the hook describes it: one map-style DataLoader at its defaults. */
  private static Map<String, Double> gpuTraining() {
    Map<String, Double> f = new HashMap<>(Map.of(LeverContext.FACT_HOST_CPUS, 16.0,
        LeverContext.FACT_TORCH_STEPS, 50.0, LeverContext.FACT_TORCH_CUDA, 1.0,
        LeverContext.FACT_TORCH_MAP_LOADERS, 1.0, LeverContext.FACT_TORCH_ITERABLE_LOADERS, 0.0,
        LeverContext.FACT_TORCH_LOADER_WORKERS, 0.0, LeverContext.FACT_TORCH_PIN_MEMORY, 0.0,
        LeverContext.FACT_TORCH_TF32, 0.0, LeverContext.FACT_TORCH_CUDNN_BENCHMARK, 0.0));
    f.put(LeverContext.FACT_TORCH_CONV_MODULES, 53.0);
    f.put(LeverContext.FACT_TORCH_CHANNELS_LAST_SHARE, 0.0);
    f.put(LeverContext.FACT_TORCH_DATA_WAIT_SHARE, 0.6);
    f.put(LeverContext.FACT_FP32_GEMM_SHARE, 0.3);
    f.put(LeverContext.FACT_CONV_SHARE, 0.5);
    f.put(LeverContext.FACT_TORCH_COMPILE, 0.0);
    return f;
  }

  private static LeverContext context(Map<String, Double> facts, Setup s) {
    return new LeverContext(null, Contexts.REAL_H200, List.<Hypothesis>of(), facts, false, s);
  }

  private static Lever lever(String id) {
    return Levers.byId(id);
  }

  @Test
  void everyFrameworkLeverIsInTheLibraryAsAProcessLever() {
    for (TorchLever.Kind k : TorchLever.Kind.values()) {
      assertThat(lever(k.id).scope()).isEqualTo(Lever.Scope.PROCESS);
    }
    assertThat(lever("torch-tf32").safety()).isEqualTo(SafetyClass.B);
    assertThat(lever("torch-dl-workers").safety()).isEqualTo(SafetyClass.A);
  }

  @Test
  void aJobInWhichTheHookSawNoTorchGetsNoneOfThem() {
    LeverContext c = context(Map.of(LeverContext.FACT_HOST_CPUS, 16.0), Setup.shipped());
    for (TorchLever.Kind k : TorchLever.Kind.values()) {
      Lever.Applicability a = lever(k.id).check(c);
      assertThat(a.never()).as(k.id).isTrue();
      assertThat(a.reason()).contains("saw no torch");
    }
  }

  @Test
  void aDefaultTrainingJobOnAGpuGetsTheMathConvolutionAndLoaderLevers() {
    LeverContext c = context(gpuTraining(), Setup.shipped());
    for (String id : List.of("torch-tf32", "torch-cudnn-benchmark", "torch-channels-last", "torch-dl-workers",
        "torch-dl-pin-memory")) {
      assertThat(lever(id).check(c).applies()).as(id + ": " + lever(id).check(c).reason()).isTrue();
    }
    assertThat(lever("torch-dl-persistent-workers").check(c).applies()).isFalse();
    assertThat(lever("torch-inductor-max-autotune").check(c).never()).isTrue();
  }

  @Test
  void theWorkerLeversFollowOnceTheLoaderHasWorkers() {
    LeverContext c = context(gpuTraining(), Setup.shipped());
    Setup s = lever("torch-dl-workers").apply(Setup.shipped(), c);
    assertThat(s.environment()).containsEntry(TorchLever.VARIABLE, "dl-workers=8");
    LeverContext after = c.withSetup(s);
    assertThat(lever("torch-dl-workers").check(after).applies()).isFalse();
    assertThat(lever("torch-dl-persistent-workers").check(after).applies()).isTrue();
    Setup both = lever("torch-dl-prefetch").apply(s, after);
    assertThat(both.environment()).containsEntry(TorchLever.VARIABLE, "dl-workers=8,dl-prefetch-factor=4");
  }

  @Test
  void workersAreTheCpusLessOneAtMostEight() {
    Map<String, Double> f = gpuTraining();
    f.put(LeverContext.FACT_HOST_CPUS, 4.0);
    assertThat(TorchLever.workers(context(f, Setup.shipped()))).isEqualTo(3);
    f.put(LeverContext.FACT_HOST_CPUS, 1.0);
    assertThat(lever("torch-dl-workers").check(context(f, Setup.shipped())).never()).isTrue();
  }

  @Test
  void iterableDatasetsAndLoadersWithWorkersAreRefusedTheWorkerLever() {
    Map<String, Double> f = gpuTraining();
    f.put(LeverContext.FACT_TORCH_MAP_LOADERS, 0.0);
    f.put(LeverContext.FACT_TORCH_ITERABLE_LOADERS, 1.0);
    Lever.Applicability a = lever("torch-dl-workers").check(context(f, Setup.shipped()));
    assertThat(a.never()).isTrue();
    assertThat(a.reason()).contains("IterableDataset").contains("repeat");
    Map<String, Double> g = gpuTraining();
    g.put(LeverContext.FACT_TORCH_LOADER_WORKERS, 4.0);
    assertThat(lever("torch-dl-workers").check(context(g, Setup.shipped())).reason()).contains("already have workers");
  }

  @Test
  void whatTheJobAlreadyChoseIsNotOfferedAgain() {
    Map<String, Double> f = gpuTraining();
    f.put(LeverContext.FACT_TORCH_TF32, 1.0);
    f.put(LeverContext.FACT_TORCH_CUDNN_BENCHMARK, 1.0);
    f.put(LeverContext.FACT_TORCH_CHANNELS_LAST_SHARE, 1.0);
    f.put(LeverContext.FACT_TORCH_PIN_MEMORY, 1.0);
    for (String id : List.of("torch-tf32", "torch-cudnn-benchmark", "torch-channels-last", "torch-dl-pin-memory")) {
      assertThat(lever(id).check(context(f, Setup.shipped())).never()).as(id).isTrue();
    }
  }

  @Test
  void tf32ThroughTheHookAndThroughTheEnvironmentExcludeEachOther() {
    LeverContext c = context(gpuTraining(), Setup.shipped());
    Setup hook = lever("torch-tf32").apply(Setup.shipped(), c);
    assertThat(hook.environment()).containsEntry(TorchLever.VARIABLE, "tf32");
    assertThat(lever("env-torch-tf32").check(c.withSetup(hook)).applies()).isFalse();
    Setup env = lever("env-torch-tf32").apply(Setup.shipped(), c);
    assertThat(lever("torch-tf32").check(c.withSetup(env)).applies()).isFalse();
  }

  @Test
  void aCpuOnlyJobGetsOnlyTheLoaderLevers() {
    Map<String, Double> f = gpuTraining();
    f.put(LeverContext.FACT_TORCH_CUDA, 0.0);
    LeverContext c = context(f, Setup.shipped());
    for (String id : List.of("torch-tf32", "torch-cudnn-benchmark", "torch-channels-last", "torch-dl-pin-memory")) {
      assertThat(lever(id).check(c).never()).as(id).isTrue();
    }
    assertThat(lever("torch-dl-workers").check(c).applies()).isTrue();
  }

  @Test
  void theExpectedGainsComeFromTheSharesTheyActOn() {
    LeverContext c = context(gpuTraining(), Setup.shipped());
    // FP32 GEMMs 30% of the span, 4x faster: 1 / (0.7 + 0.075) - 1
    assertThat(lever("torch-tf32").expectedGain(c).getAsDouble()).isCloseTo(1 / 0.775 - 1,
        org.assertj.core.data.Offset.offset(1e-9));
    // 60% waiting for data, 8 workers leave an eighth of it
    assertThat(lever("torch-dl-workers").expectedGain(c).getAsDouble()).isCloseTo(1 / (0.4 + 0.6 / 8) - 1,
        org.assertj.core.data.Offset.offset(1e-9));
    assertThat(lever("torch-channels-last").expectationBasis(c).orElseThrow()).contains("convolution kernels")
        .contains("50.0%");
    assertThat(lever("torch-dl-persistent-workers").expectedGain(c)).isEmpty();
  }

  @Test
  void theInductorKnobsSetTheVariablesInductorReadsForJobsThatCompile() {
    Map<String, Double> f = gpuTraining();
    f.put(LeverContext.FACT_TORCH_COMPILE, 1.0);
    LeverContext c = context(f, Setup.shipped());
    assertThat(lever("torch-inductor-max-autotune").check(c).applies()).isTrue();
    assertThat(lever("torch-inductor-max-autotune").apply(Setup.shipped(), c).environment())
        .containsEntry("TORCHINDUCTOR_MAX_AUTOTUNE", "1");
    assertThat(lever("torch-inductor-coordinate-descent").apply(Setup.shipped(), c).environment())
        .containsEntry("TORCHINDUCTOR_COORDINATE_DESCENT_TUNING", "1");
  }
}
