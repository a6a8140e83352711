package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gitm.levers.LeverContext;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The facts a black-box trace gives process levers. */
class ProcessProfilerFactsTest {
  @Test
  void sharesAreOfTheTracedSpan() {
    List<TraceRecord> r = List.of(
        kernel("ampere_sgemm_128x64_nn", 0, 600),
        kernel("relu_kernel", 600, 700),
        new ApiCallRecord(ApiKind.ALLOC, "cudaMalloc", 1, 1, 700, 900),
        kernel("ampere_sgemm_128x64_nn", 900, 1000));
    Map<String, Double> f = ProcessProfiler.traceFacts(r);
    assertThat(f.get(LeverContext.FACT_FP32_GEMM_SHARE)).isCloseTo(0.7, within(1e-9));
    assertThat(f.get(LeverContext.FACT_ALLOCATION_SHARE)).isCloseTo(0.2, within(1e-9));
    assertThat(ProcessProfiler.traceFacts(List.of())).isEmpty();
  }

  @Test
  void theSamplersJobPidsAreTheRunsProcessGroupAndStayTheJobsAfterTheyExit(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws Exception {
    // the job: a script that starts a child, writes both pids, and waits for a file before it ends
    java.nio.file.Path script = dir.resolve("job.sh");
    java.nio.file.Path go = dir.resolve("go");
    java.nio.file.Files.writeString(script, "#!/bin/bash\nsleep 30 & child=$!\necho \"$$ $child\" > "
        + dir.resolve("pids") + "\nwhile [ ! -e " + go + " ]; do sleep 0.05; done\nkill $child\necho 'it/s: 1'\n");
    java.nio.file.Files.setPosixFilePermissions(script,
        java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    io.gitm.job.ProcessSpec spec = new io.gitm.job.ProcessSpec(List.of(script.toString()), false, dir,
        io.gitm.job.ProcessSpec.environment(System.getenv(), List.of("PATH"), List.of()),
        new io.gitm.job.ProcessMetric(io.gitm.job.ProcessMetric.Kind.REGEX, "it/s: ([0-9.]+)", null, true,
            null), List.of(), 1e-3, 0, null);
    try (io.gitm.job.ProcessJob job = new io.gitm.job.ProcessJob(spec, dir.resolve("run"),
        io.gitm.api.Ticker.system(), java.time.Duration.ofSeconds(30))) {
      java.util.function.Supplier<java.util.Set<Long>> pids = ProcessProfiler.jobPids(job);
      assertThat(pids.get()).as("before the run").isEmpty();
      var run = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor().submit(
          () -> job.execute(io.gitm.levers.Setup.shipped(), Map.of(), "t"));
      java.nio.file.Path written = dir.resolve("pids");
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (!(java.nio.file.Files.exists(written) && java.nio.file.Files.readString(written).endsWith("\n"))
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      String[] both = java.nio.file.Files.readString(written).trim().split(" ");
      java.util.Set<Long> during = pids.get();
      java.nio.file.Files.createFile(go);
      assertThat(run.get().ok()).isTrue();
      assertThat(during).contains(Long.parseLong(both[0]), Long.parseLong(both[1]));
      assertThat(pids.get()).as("after the run").contains(Long.parseLong(both[0]), Long.parseLong(both[1]))
          .doesNotContain(ProcessHandle.current().pid());
    }
  }

  @Test
  void aJobProcessTheDriverStillListsWhileItExitsIsNotCountedAsAnotherTenant() {
    // the driver lists a process until its context is torn down, after it left /proc's view of the group
    List<List<io.gitm.device.GpuProcess>> answers = new java.util.ArrayList<>(List.of(
        List.of(new io.gitm.device.GpuProcess(100, 2L << 30, 80)),
        List.of(new io.gitm.device.GpuProcess(100, 2L << 30, 0))));
    ProcessProfiler.GpuUse use = new ProcessProfiler.GpuUse(() -> answers.removeFirst());
    use.poll(java.util.Set.of(100L));
    use.poll(java.util.Set.of());
    assertThat(use.note().orElseThrow()).contains("pid 100 peak 2.00 GiB").doesNotContain("other process");
  }

  @Test
  void theDriversProcessListIsFilteredToTheJobsGroupAndOtherTenantsAreNamed() {
    List<List<io.gitm.device.GpuProcess>> answers = new java.util.ArrayList<>(List.of(
        List.of(new io.gitm.device.GpuProcess(100, 2L << 30, 80), new io.gitm.device.GpuProcess(999, 1L << 30, 10)),
        List.of(new io.gitm.device.GpuProcess(100, 4L << 30, 90))));
    ProcessProfiler.GpuUse use = new ProcessProfiler.GpuUse(() -> answers.removeFirst());
    use.poll(java.util.Set.of(100L, 101L));
    use.poll(java.util.Set.of(100L, 101L));
    assertThat(use.note().orElseThrow()).contains("pid 100 peak 4.00 GiB, SM 85% mean")
        .contains("1 other process(es) on the same GPU (1.00 GiB at peak): it is shared").doesNotContain("pid 999");
    assertThat(new ProcessProfiler.GpuUse(null).note()).isEmpty();
    ProcessProfiler.GpuUse failing = new ProcessProfiler.GpuUse(() -> {
      throw new IllegalStateException("NVML_ERROR_NO_PERMISSION");
    });
    failing.poll(java.util.Set.of(1L));
    assertThat(failing.note().orElseThrow()).contains("could not be read: NVML_ERROR_NO_PERMISSION");
  }

  private static KernelRecord kernel(String name, long start, long end) {
    return new KernelRecord(name, 0, 7, start + 1, start, end, new Dim3(1, 1, 1), new Dim3(128, 1, 1), 32, 0, 0);
  }
}
