package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.TraceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * PyTorch 2.11 profiler traces of five small known jobs, recorded on the lent H200 and gzipped by the profiler
 * itself (scripts/gpu.d/kineto_traces.py; what each job did is in {@code tracer/real/kineto/manifest.json}). The
 * expected figures were counted from the same files with Python's {@code gzip} and {@code json} modules: events of
 * phase X by category (kernel, gpu_memcpy, gpu_memset, and cuda_runtime with cuda_driver for the API calls), the
 * kernels' durations as {@code round(dur × 1000)} ns summed, and the streams of the device events.
 */
class PytorchProfilerTracesTest {
  @TempDir
  Path tmp;

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "single-stream-mlp, 203, 15, 5, 240, 2333556, 7",
      "two-streams, 51, 10, 5, 199, 14045128, 7 14 18",
      "cuda-graph, 197, 10, 48, 54, 944957, 7",
      "memory-stack, 41, 5, 0, 65, 119484, 7",
      "nccl-one-rank, 20, 10, 10, 121, 361441, 7"})
  void aGzippedProfilerTraceImportsEveryDeviceEventAndApiCall(String job, int kernels, int copies, int memsets,
      int apiCalls, long kernelBusyNs, String streams) throws Exception {
    Path gtrace = tmp.resolve(job + ".gtrace");
    KinetoImporter.importTrace(RealTraceFixturesTest.resource("kineto/" + job + ".pt.trace.json.gz"), gtrace);
    List<TraceRecord> all = RealTraceFixturesTest.readAll(gtrace);
    List<KernelRecord> ks = all.stream().filter(KernelRecord.class::isInstance).map(KernelRecord.class::cast).toList();
    assertThat(ks).hasSize(kernels);
    assertThat(all).filteredOn(CopyRecord.class::isInstance).hasSize(copies);
    assertThat(all).filteredOn(MemsetRecord.class::isInstance).hasSize(memsets);
    assertThat(all).filteredOn(ApiCallRecord.class::isInstance).hasSize(apiCalls);
    // each kernel's start and end are rounded to the ns apart, so its length may differ by 1 ns from round(dur)
    long busy = ks.stream().mapToLong(k -> k.endNs() - k.startNs()).sum();
    assertThat(busy).isBetween(kernelBusyNs - kernels, kernelBusyNs + kernels);
    TreeSet<Integer> seen = new TreeSet<>();
    all.forEach(r -> {
      switch (r) {
        case KernelRecord k -> seen.add(k.stream());
        case CopyRecord c -> seen.add(c.stream());
        case MemsetRecord m -> seen.add(m.stream());
        default -> { }
      }
    });
    assertThat(seen).containsExactlyElementsOf(Arrays.stream(streams.split(" ")).map(Integer::valueOf).toList());
  }

  @Test
  void theEventsARealTraceDoesNotImportAreCountedByCategoryInTheMeta() throws Exception {
    // counted with Python: phase X events by category outside the imported ones, other events by phase
    Path gtrace = tmp.resolve("mlp.gtrace");
    KinetoImporter.Result r = KinetoImporter.importTrace(RealTraceFixturesTest.resource(
        "kineto/single-stream-mlp.pt.trace.json.gz"), gtrace);
    Map<String, Long> expected = Map.of("cat Trace", 1L, "cat gpu_user_annotation", 26L,
        "ph M", 60L, "ph f", 303L, "ph i", 2L, "ph s", 300L);
    assertThat(r.ignored()).containsExactlyInAnyOrderEntriesOf(expected);
    try (TraceReader reader = TraceReader.open(gtrace)) {
      expected.forEach((k, n) -> assertThat(reader.meta().attributes())
          .containsEntry(KinetoImporter.NOT_IMPORTED + k, Long.toString(n)));
    }
  }

  /**
   * A CPU-only profile recorded here with Debian's PyTorch 1.13, built without Kineto (scripts/kineto_cpu_traces.py,
   * {@code tracer/real/kineto-torch1.13-cpu/manifest.json}): the legacy profiler's bare array of 434 complete events
   * without a category (counted with Python), nothing a device ran.
   */
  @Test
  void aCpuOnlyProfileOfPytorch113IsRefusedSayingWhatItHoldsAndWritesNothing() throws Exception {
    Path gtrace = tmp.resolve("cpu.gtrace");
    assertThatThrownBy(() -> KinetoImporter.importTrace(RealTraceFixturesTest.resource(
        "kineto-torch1.13-cpu/cpu-mlp.pt.trace.json.gz"), gtrace)).isInstanceOf(KinetoFormatException.class)
        .hasMessage("no device operations to import (no kernel, memcpy or memset event with a timestamp): its events"
            + " have no category: the legacy autograd profiler's format (a PyTorch built without Kineto), which"
            + " records no CUDA activity; the trace holds cat null 434");
    assertThat(gtrace).doesNotExist();
    assertThat(Files.list(tmp)).isEmpty();
  }
}
