package io.gitm.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Ticker;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real PyTorch program as a black-box job with gitm's Python hook: the step metric and the framework levers. */
class ProcessJobTorchTest {
  private static final Duration LIVENESS = Duration.ofMinutes(5);

  @TempDir
  Path dir;

  private ProcessJob job(String script, ProcessMetric metric, String... args) {
    Path python = PythonTorch.require();
    List<String> argv = new java.util.ArrayList<>(List.of(python.toString(),
        PythonTorch.tests().resolve("jobs").resolve(script).toString()));
    argv.addAll(List.of(args));
    Map<String, String> env = ProcessSpec.environment(System.getenv(), List.of("PATH", "HOME"), List.of());
    ProcessSpec spec = new ProcessSpec(argv, false, dir, env, metric, List.of(), 1e-3, 0, null);
    return new ProcessJob(spec, dir.resolve("run"), Ticker.system(), LIVENESS,
        TorchHook.install(dir.resolve("run/hook/python")));
  }

  @Test
  void theStepMetricIsTheRateTheHookCountedInsideTheJob() throws Exception {
    try (ProcessJob j = job("train_loop.py", ProcessMetric.counted(ProcessMetric.Kind.STEPS), "20")) {
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(r.ok()).as(r.failure()).isTrue();
      assertThat(r.hook().steps()).isEqualTo(20);
      assertThat(r.metric()).isEqualTo(r.hook().stepsPerSecond().orElseThrow()).isPositive();
      assertThat(r.hook().leverFacts()).containsEntry(LeverContext.FACT_TORCH_MAP_LOADERS, 1.0)
          .containsEntry(LeverContext.FACT_TORCH_CONV_MODULES, 1.0).containsEntry(LeverContext.FACT_TORCH_CUDA, 0.0);
      assertThat(j.metric()).isEqualTo("steps/s");
    }
  }

  @Test
  void theSamplesMetricCountsTheBatchSizes() throws Exception {
    try (ProcessJob j = job("train_loop.py", ProcessMetric.counted(ProcessMetric.Kind.SAMPLES), "20")) {
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(r.ok()).as(r.failure()).isTrue();
      assertThat(r.metric()).isEqualTo(r.hook().samplesPerSecond().orElseThrow());
      assertThat(r.metric() / r.hook().stepsPerSecond().orElseThrow()).isCloseTo(8.0,
          org.assertj.core.data.Offset.offset(1e-9));
    }
  }

  @Test
  void aGateBlockWithAFrameworkLeverRunsTheJobWithIt() throws Exception {
    try (ProcessJob j = job("train_loop.py", ProcessMetric.counted(ProcessMetric.Kind.STEPS), "6")) {
      Setup s = Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE, "dl-workers=2,tf32");
      try (Job.Run run = j.open(s)) {
        assertThat(run.block()).isPositive();
      }
      ProcessJob.RunResult r = j.execute(s, Map.of(), "t");
      assertThat(r.hook().levers().get("dl-workers").detail()).contains("num_workers 0 -> 2");
      assertThat(r.hook().levers().get("tf32").applied()).isTrue();
    }
  }

  @Test
  void aLeverTheHookCouldNotApplyIsARefusedSetupNotAMeasurement() throws Exception {
    try (ProcessJob j = job("iterable.py", ProcessMetric.counted(ProcessMetric.Kind.STEPS))) {
      try (Job.Run run = j.open(Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE, "dl-workers=2"))) {
        assertThatThrownBy(run::block).isInstanceOfSatisfying(TrialFailure.class, f -> {
          assertThat(f.kind()).isEqualTo(TrialFailure.Kind.SETUP_REFUSED);
          assertThat(f.getMessage()).contains("could not apply dl-workers").contains("num_workers=1");
        });
      }
    }
    try (ProcessJob j = job("inference.py", ProcessMetric.counted(ProcessMetric.Kind.STEPS))) {
      try (Job.Run run = j.open(Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE, "dl-workers=2"))) {
        assertThatThrownBy(run::block).isInstanceOfSatisfying(TrialFailure.class,
            f -> assertThat(f.getMessage()).contains("nothing to apply dl-workers to (no DataLoader was made)"));
      }
    }
  }

  @Test
  void aProgramWithoutTorchHasNoStepsToCount() throws Exception {
    try (ProcessJob j = job("no_torch.py", ProcessMetric.counted(ProcessMetric.Kind.STEPS))) {
      ProcessJob.RunResult r = j.execute(Setup.shipped(), Map.of(), "t");
      assertThat(r.ok()).isFalse();
      assertThat(r.failure()).contains("no process of the job imported torch").contains("--metric-regex");
      try (Job.Run run = j.open(Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE, "tf32"))) {
        assertThatThrownBy(run::block).isInstanceOf(TrialFailure.class);
      }
    }
  }

  @Test
  void theStepMetricNeedsTheHook() {
    Path python = PythonTorch.PYTHON;
    ProcessSpec spec = new ProcessSpec(List.of(python.toString(), "x.py"), false, dir, Map.of("PATH", "/usr/bin"),
        ProcessMetric.counted(ProcessMetric.Kind.STEPS), List.of(), 1e-3, 0, null);
    assertThatThrownBy(() -> new ProcessJob(spec, dir, Ticker.system(), LIVENESS, null))
        .hasMessageContaining("--no-hook");
  }
}
