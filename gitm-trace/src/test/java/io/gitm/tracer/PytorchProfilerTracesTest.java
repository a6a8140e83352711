package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.TraceRecord;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
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
}
