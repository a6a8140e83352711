package io.gitm.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.levers.LeverContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hook's files as shipped, the environment of a run, and what gitm reads back from a run's hook folder. */
class TorchHookTest {
  @TempDir
  Path dir;

  @Test
  void everyFileOfTheHooksResourceFolderIsInstalled() throws Exception {
    Path source = PythonTorch.repoRoot().resolve("gitm-levers/src/main/resources/io/gitm/job/hook");
    List<String> shipped;
    try (Stream<Path> s = Files.walk(source)) {
      shipped = s.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(".py"))
          .map(p -> source.relativize(p).toString()).sorted().toList();
    }
    assertThat(TorchHook.FILES.stream().sorted().toList()).isEqualTo(shipped);
    TorchHook h = TorchHook.install(dir.resolve("py"));
    for (String f : shipped) {
      assertThat(h.python().resolve(f)).hasSameTextualContentAs(source.resolve(f));
    }
  }

  @Test
  void aRunGetsTheHookFirstOnItsPathThenTheJobsOwn() {
    TorchHook h = TorchHook.install(dir.resolve("py"));
    Map<String, String> env = h.environment(dir.resolve("p0001.hook"), "/opt/job/lib");
    assertThat(env).containsEntry("PYTHONPATH", h.python() + ":/opt/job/lib")
        .containsEntry("GITM_HOOK_DIR", dir.resolve("p0001.hook").toString())
        .containsEntry("GITM_HOOK_VERSION", "1");
    assertThat(h.environment(dir, null)).containsEntry("PYTHONPATH", h.python().toString());
  }

  @Test
  void aFolderTheHookNeverWroteInIsAJobWithoutTorch() throws Exception {
    Files.createDirectories(dir.resolve("empty"));
    TorchHook.Report r = TorchHook.read(dir.resolve("empty"));
    assertThat(r.torch()).isFalse();
    assertThat(r.leverFacts()).isEmpty();
    assertThat(r.stepsPerSecond()).isEmpty();
    assertThat(TorchHook.read(dir.resolve("missing")).torch()).isFalse();
  }

  @Test
  void theFactsOfARunBecomeTheLeversFacts() throws Exception {
    Path f = dir.resolve("h");
    Files.createDirectories(f.resolve("processes"));
    Files.writeString(f.resolve("main-single.json"), "{\"pid\":1}");
    Files.writeString(f.resolve("processes/1.json"), "{}");
    Files.writeString(f.resolve("processes/2.json"), "{}");
    Files.writeString(f.resolve("metric.json"), "{\"source\":\"optimizer\",\"steps\":40,\"stepsPerSecond\":12.5,"
        + "\"dataWaitShare\":0.4,\"samplesPerSecond\":400.0}");
    Files.writeString(f.resolve("facts.json"), """
        {"torch":"2.11.0","cuda":true,"dataloaders":[
          {"datasetKind":"map","numWorkers":0,"pinMemory":false,"persistentWorkers":false},
          {"datasetKind":"iterable","numWorkers":2,"pinMemory":true,"persistentWorkers":true}],
         "flags":{"allowTf32Cublas":false,"cudnnBenchmark":true},
         "convolutions":{"modules":20,"inputs":40,"channelsLast":10},
         "used":{"compile":1,"autocast":0},
         "levers":{"tf32":{"applied":true,"detail":"set"},"dl-workers":{"applied":false,"detail":"iterable"}}}
        """);
    TorchHook.Report r = TorchHook.read(f);
    assertThat(r.torch()).isTrue();
    assertThat(r.processes()).isEqualTo(2);
    assertThat(r.steps()).isEqualTo(40);
    assertThat(r.stepsPerSecond()).hasValue(12.5);
    assertThat(r.samplesPerSecond()).hasValue(400.0);
    assertThat(r.levers()).containsEntry("tf32", new TorchHook.LeverOutcome(true, "set"))
        .containsEntry("dl-workers", new TorchHook.LeverOutcome(false, "iterable"));
    assertThat(r.leverFacts())
        .containsEntry(LeverContext.FACT_TORCH_STEPS, 40.0)
        .containsEntry(LeverContext.FACT_TORCH_DATA_WAIT_SHARE, 0.4)
        .containsEntry(LeverContext.FACT_TORCH_MAP_LOADERS, 1.0)
        .containsEntry(LeverContext.FACT_TORCH_ITERABLE_LOADERS, 1.0)
        .containsEntry(LeverContext.FACT_TORCH_LOADER_WORKERS, 0.0)
        .containsEntry(LeverContext.FACT_TORCH_PIN_MEMORY, 0.0)
        .containsEntry(LeverContext.FACT_TORCH_TF32, 0.0)
        .containsEntry(LeverContext.FACT_TORCH_CUDNN_BENCHMARK, 1.0)
        .containsEntry(LeverContext.FACT_TORCH_CONV_MODULES, 20.0)
        .containsEntry(LeverContext.FACT_TORCH_CHANNELS_LAST_SHARE, 0.25)
        .containsEntry(LeverContext.FACT_TORCH_COMPILE, 1.0)
        .containsEntry(LeverContext.FACT_TORCH_CUDA, 1.0);
  }

  @Test
  void theHooksOwnFailureIsReadAsItsFirstAndLastLines() throws Exception {
    Path f = dir.resolve("h");
    Files.createDirectories(f);
    Files.writeString(f.resolve("hook-error.txt"), "2026-12-02T10:00:00 pid 7: the hook failed in exit and turned"
        + " itself off\nTraceback (most recent call last):\n  File x\nRuntimeError: boom\n");
    TorchHook.Report r = TorchHook.read(f);
    assertThat(r.error()).isEqualTo("2026-12-02T10:00:00 pid 7: the hook failed in exit and turned itself off"
        + " (RuntimeError: boom)");
  }
}
