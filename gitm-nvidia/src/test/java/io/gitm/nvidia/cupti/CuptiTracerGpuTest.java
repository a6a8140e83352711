package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Ticker;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import java.lang.foreign.MemorySegment;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * In-process CUPTI tracing of known work on a real GPU: launches, pageable and pinned copies, a memset and a
 * context synchronization come back as records with the right counts, names, streams, memory kinds, increasing
 * timestamps, and host-clock times inside the window in which the calls were made.
 */
@Tag("gpu")
class CuptiTracerGpuTest {
  static final int LAUNCHES = 20;
  static final int N = 1 << 20;
  static final long BYTES = 4L * N;
  /** GPU timestamps reach the host clock through CUPTI's interpolation and our offset: allowed slack, in ns. */
  static final long GPU_SLACK_NS = 100_000;
  static final long API_SLACK_NS = 20_000;

  static GpuKit kit;

  /** Per test, so that without a GPU each test reports as skipped with the reason (not as zero tests). */
  @BeforeEach
  void gpu() throws Exception {
    Assumptions.assumeTrue(GpuKit.unusableReason().isEmpty(), () -> GpuKit.unusableReason().orElse(""));
    if (kit == null) {
      kit = GpuKit.open();
    }
  }

  @AfterAll
  static void close() {
    if (kit != null) {
      kit.close();
    }
  }

  @Test
  void knownWorkIsTracedWithCountsNamesStreamsMemoryKindsAndHostTimes() {
    Driver d = kit.driver;
    MemorySegment stream = d.createStream();
    long dx = d.malloc(BYTES);
    MemorySegment pinned = d.mallocHost(BYTES);
    MemorySegment pageable = kit.arena.allocate(BYTES, 64);
    MemorySegment args = kit.axpbArgs(dx, N, 1.0001f, 1f);
    CuptiTracer tracer = CuptiTracer.create();
    ConcurrentLinkedQueue<TraceRecord> records = new ConcurrentLinkedQueue<>();
    assertThat(tracer.availability().usable()).as(tracer.availability().reason()).isTrue();
    tracer.start(records::add);
    long t0;
    long t1;
    try {
      t0 = System.nanoTime();
      d.copyHtoD(dx, pageable, BYTES);
      d.copyHtoD(dx, pinned, BYTES);
      d.memsetD8(dx, (byte) 0x11, BYTES);
      for (int i = 0; i < LAUNCHES; i++) {
        d.launch(kit.axpb, N / 256, 256, stream, args);
      }
      d.synchronize();
      d.copyDtoH(pinned, dx, BYTES);
      d.synchronize();
      t1 = System.nanoTime();
      tracer.flush();
    } finally {
      tracer.stop();
      d.free(dx);
      d.freeHost(pinned);
    }
    var meta = tracer.meta();
    assertThat(meta.devices()).isNotEmpty().allSatisfy(dev -> assertThat(dev.uuid()).startsWith("GPU-"));
    assertThat(meta.attributes()).containsKeys("clock.offsetNs", "clock.uncertaintyNs", "clock.driftNs");
    CuptiTracer.Stats stats = tracer.stats();
    assertThat(stats.sinkErrors()).isZero();
    assertThat(stats.refusedBuffers()).isZero();
    assertThat(stats.dropped()).isZero();
    assertThat(tracer.firstError()).isEmpty();

    List<KernelRecord> kernels = records.stream().filter(r -> r instanceof KernelRecord k
        && k.name().equals("gitm_axpb")).map(r -> (KernelRecord) r)
        .sorted(Comparator.comparingLong(KernelRecord::correlationId)).toList();
    assertThat(kernels).hasSize(LAUNCHES);
    assertThat(kernels).extracting(KernelRecord::stream).containsOnly(kernels.getFirst().stream());
    assertThat(kernels).allSatisfy(k -> {
      assertThat(k.grid().x()).isEqualTo(N / 256);
      assertThat(k.block().x()).isEqualTo(256);
      assertThat(k.endNs()).isGreaterThan(k.startNs());
    });
    for (int i = 1; i < kernels.size(); i++) {
      assertThat(kernels.get(i).startNs()).as("kernel %d starts after kernel %d ends (same stream)", i, i - 1)
          .isGreaterThanOrEqualTo(kernels.get(i - 1).endNs());
    }

    List<CopyRecord> copies = records.stream().filter(r -> r instanceof CopyRecord).map(r -> (CopyRecord) r)
        .sorted(Comparator.comparingLong(CopyRecord::startNs)).toList();
    assertThat(copies).extracting(CopyRecord::kind, CopyRecord::srcKind, CopyRecord::dstKind, CopyRecord::bytes)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(CopyKind.HTOD, MemoryKind.PAGEABLE, MemoryKind.DEVICE, BYTES),
            org.assertj.core.groups.Tuple.tuple(CopyKind.HTOD, MemoryKind.PINNED, MemoryKind.DEVICE, BYTES),
            org.assertj.core.groups.Tuple.tuple(CopyKind.DTOH, MemoryKind.DEVICE, MemoryKind.PINNED, BYTES));
    assertThat(copies.getFirst().stream()).isNotEqualTo(kernels.getFirst().stream());

    List<MemsetRecord> memsets = records.stream().filter(r -> r instanceof MemsetRecord).map(r -> (MemsetRecord) r)
        .toList();
    assertThat(memsets).singleElement().satisfies(m -> {
      assertThat(m.bytes()).isEqualTo(BYTES);
      assertThat(m.value()).isEqualTo(0x11);
      assertThat(m.memoryKind()).isEqualTo(MemoryKind.DEVICE);
    });

    List<ApiCallRecord> launches = records.stream().filter(r -> r instanceof ApiCallRecord a
        && a.name().startsWith("cuLaunchKernel")).map(r -> (ApiCallRecord) r).toList();
    assertThat(launches).hasSize(LAUNCHES).allSatisfy(a -> assertThat(a.kind()).isEqualTo(ApiKind.LAUNCH));
    Set<Long> launchIds = launches.stream().map(ApiCallRecord::correlationId).collect(Collectors.toSet());
    assertThat(kernels).extracting(KernelRecord::correlationId).allMatch(launchIds::contains);
    Map<ApiKind, Long> apiKinds = records.stream().filter(r -> r instanceof ApiCallRecord)
        .collect(Collectors.groupingBy(r -> ((ApiCallRecord) r).kind(), Collectors.counting()));
    assertThat(apiKinds).containsKeys(ApiKind.COPY, ApiKind.MEMSET, ApiKind.SYNC);

    assertThat(records).filteredOn(r -> r instanceof SyncRecord s && s.kind() == SyncKind.CONTEXT).isNotEmpty();

    for (TraceRecord r : records) {
      if (r instanceof KernelRecord || r instanceof CopyRecord || r instanceof MemsetRecord) {
        assertThat(r.startNs()).as("%s starts inside the host window [%d, %d]", r, t0, t1)
            .isGreaterThanOrEqualTo(t0 - GPU_SLACK_NS);
        assertThat(r.endNs()).as("%s ends inside the host window [%d, %d]", r, t0, t1)
            .isLessThanOrEqualTo(t1 + GPU_SLACK_NS);
      } else if (r instanceof ApiCallRecord a && launches.contains(a)) {
        assertThat(a.startNs()).isBetween(t0 - API_SLACK_NS, t1 + API_SLACK_NS);
        assertThat(a.endNs()).isBetween(t0 - API_SLACK_NS, t1 + API_SLACK_NS);
      }
    }
  }

  @Test
  void oneTracerAtATimeAndATracerCanStartAgainAfterStop() {
    CuptiTracer a = CuptiTracer.create();
    CuptiTracer b = new CuptiTracer(List.of(), Map.of(), Ticker.system());
    a.start(r -> { });
    try {
      assertThatThrownBy(() -> b.start(r -> { })).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("another CuptiTracer");
    } finally {
      a.stop();
    }
    ConcurrentLinkedQueue<TraceRecord> got = new ConcurrentLinkedQueue<>();
    b.start(got::add);
    try {
      long dx = kit.driver.malloc(4096);
      MemorySegment args = kit.axpbArgs(dx, 1024, 1f, 0f);
      kit.driver.launch(kit.axpb, 4, 256, MemorySegment.NULL, args);
      kit.driver.synchronize();
      kit.driver.free(dx);
    } finally {
      b.stop();
    }
    assertThat(got).filteredOn(r -> r instanceof KernelRecord).hasSize(1);
  }
}
