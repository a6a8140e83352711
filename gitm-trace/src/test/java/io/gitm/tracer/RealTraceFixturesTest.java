package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traces recorded on the lent H200 (2026-11-29, driver 580.159.04, CUDA 13.0; see docs/gpu-results.md), read by the
 * engine: the C injection library's output, the in-process CUPTI tracer's output from {@code gitm run}, and a real
 * PyTorch 2.11 profiler trace.
 */
class RealTraceFixturesTest {
  @TempDir
  Path tmp;

  static Path resource(String name) throws URISyntaxException {
    return Path.of(RealTraceFixturesTest.class.getResource("/tracer/real/" + name).toURI());
  }

  static List<TraceRecord> readAll(Path p) throws IOException {
    List<TraceRecord> out = new ArrayList<>();
    try (TraceReader r = TraceReader.open(p)) {
      r.iterator().forEachRemaining(out::add);
    }
    return out;
  }

  @Test
  void injectionLibraryTraceOfUnmodifiedPytorchIsReadByTheJavaReader() throws Exception {
    Path p = resource("torch-injection-h200.gtrace");
    try (TraceReader r = TraceReader.open(p)) {
      assertThat(r.meta().clock()).isEqualTo(ClockDomain.HOST_MONOTONIC);
      assertThat(r.meta().kind()).isEqualTo(DeviceKind.REAL);
      assertThat(r.meta().devices()).anySatisfy(d -> assertThat(d.name()).contains("H200"));
    }
    List<TraceRecord> all = readAll(p);
    List<KernelRecord> kernels =
        all.stream().filter(KernelRecord.class::isInstance).map(KernelRecord.class::cast).toList();
    assertThat(kernels).isNotEmpty();
    assertThat(kernels).allSatisfy(k -> assertThat(k.endNs()).isGreaterThanOrEqualTo(k.startNs()));
    Set<Long> launchCorrelations = new HashSet<>();
    all.stream().filter(ApiCallRecord.class::isInstance).map(ApiCallRecord.class::cast)
        .forEach(a -> launchCorrelations.add(a.correlationId()));
    assertThat(kernels).anySatisfy(k -> assertThat(launchCorrelations).contains(k.correlationId()));
  }

  @Test
  void inProcessCuptiTraceOfHftLobHasItsEightKernelsAndPageableCopies() throws Exception {
    List<TraceRecord> all = readAll(resource("hft-lob-h200-cupti.gtrace"));
    Set<String> names = new HashSet<>();
    all.stream().filter(KernelRecord.class::isInstance).forEach(k -> names.add(((KernelRecord) k).name()));
    assertThat(names).contains("lob_decode", "lob_route_hist", "lob_route_chunks", "lob_route_scan",
        "lob_route_scatter", "lob_book", "lob_features", "lob_mlp");
    assertThat(all).filteredOn(CopyRecord.class::isInstance).map(r -> ((CopyRecord) r).srcKind())
        .contains(io.gitm.trace.MemoryKind.PAGEABLE);
  }

  @Test
  void realPytorchProfilerTraceImports() throws Exception {
    KinetoImporter.Result r =
        KinetoImporter.importTrace(resource("kineto-h200-torch2.11.pt.trace.json"), tmp.resolve("k.gtrace"));
    assertThat(r.meta().devices()).anySatisfy(d -> assertThat(d.name()).isEqualTo("NVIDIA H200"));
    List<TraceRecord> all = readAll(tmp.resolve("k.gtrace"));
    assertThat(all).filteredOn(KernelRecord.class::isInstance).hasSize(30);
    assertThat(all).filteredOn(CopyRecord.class::isInstance).hasSize(21);
    assertThat(all).filteredOn(KernelRecord.class::isInstance)
        .anySatisfy(k -> assertThat(((KernelRecord) k).name()).contains("sgemm"));
  }
}
