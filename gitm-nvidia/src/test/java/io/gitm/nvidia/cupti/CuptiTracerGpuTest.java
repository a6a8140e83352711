package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

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
import io.gitm.trace.TraceMeta;
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
 * In-process CUPTI tracing of known work on a real GPU: a pageable and a pinned upload, a memset,
 * {@value #LAUNCHES} launches on a created stream, a download to pinned memory and context synchronizations, traced
 * once; each test checks one property of what came back.
 */
@Tag("gpu")
class CuptiTracerGpuTest {
  static final int LAUNCHES = 20;
  static final int N = 1 << 20;
  static final long BYTES = 4L * N;
  /** GPU timestamps reach the host clock through CUPTI's interpolation and our offset: allowed slack, in ns. */
  static final long GPU_SLACK_NS = 100_000;
  /** Host API timestamps only through our offset: allowed slack, in ns. */
  static final long API_SLACK_NS = 20_000;

  static GpuKit kit;
  static Traced run;

  /** The records of one traced run, the host-clock window of its calls, and the tracer's meta and stats. */
  record Traced(List<TraceRecord> records, long t0, long t1, TraceMeta meta, CuptiTracer.Stats stats,
      Throwable firstError) {
    List<KernelRecord> kernels() {
      return records.stream().filter(r -> r instanceof KernelRecord k && k.name().equals("gitm_axpb"))
          .map(r -> (KernelRecord) r).sorted(Comparator.comparingLong(KernelRecord::correlationId)).toList();
    }

    List<ApiCallRecord> launches() {
      return records.stream().filter(r -> r instanceof ApiCallRecord a && a.name().startsWith("cuLaunchKernel"))
          .map(r -> (ApiCallRecord) r).toList();
    }
  }

  /** Per test, so that without a GPU each test reports as skipped with the reason (not as zero tests). */
  @BeforeEach
  void gpu() throws Exception {
    Assumptions.assumeTrue(GpuKit.unusableReason().isEmpty(), () -> GpuKit.unusableReason().orElse(""));
    if (kit == null) {
      kit = GpuKit.open();
    }
    if (run == null) {
      run = traceKnownWork();
    }
  }

  @AfterAll
  static void close() {
    if (kit != null) {
      kit.close();
    }
  }

  static Traced traceKnownWork() {
    Driver d = kit.driver;
    MemorySegment stream = d.createStream();
    long dx = d.malloc(BYTES);
    MemorySegment pinned = d.mallocHost(BYTES);
    MemorySegment pageable = kit.arena.allocate(BYTES, 64);
    MemorySegment args = kit.axpbArgs(dx, N, 1.0001f, 1f);
    CuptiTracer tracer = CuptiTracer.create();
    assertThat(tracer.availability().usable()).as(tracer.availability().reason()).isTrue();
    ConcurrentLinkedQueue<TraceRecord> records = new ConcurrentLinkedQueue<>();
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
    return new Traced(List.copyOf(records), t0, t1, tracer.meta(), tracer.stats(), tracer.firstError().orElse(null));
  }

  @Test
  void nothingIsDroppedRefusedOrFailed() {
    assertThat(run.stats().sinkErrors()).isZero();
    assertThat(run.stats().refusedBuffers()).isZero();
    assertThat(run.stats().dropped()).isZero();
    assertThat(run.stats().bufferErrors()).isZero();
    assertThat(run.firstError()).isNull();
  }

  @Test
  void metaNamesTheDevicesAndTheClockAlignment() {
    assertThat(run.meta().devices()).isNotEmpty().allSatisfy(dev -> assertThat(dev.uuid()).startsWith("GPU-"));
    assertThat(run.meta().attributes()).containsKeys("clock.offsetNs", "clock.uncertaintyNs", "clock.driftNs");
  }

  @Test
  void everyLaunchIsOneKernelRecordWithItsNameShapeAndStream() {
    List<KernelRecord> kernels = run.kernels();
    assertThat(kernels).hasSize(LAUNCHES);
    assertThat(kernels).extracting(KernelRecord::stream).containsOnly(kernels.getFirst().stream());
    assertThat(kernels).allSatisfy(k -> {
      assertThat(k.grid().x()).isEqualTo(N / 256);
      assertThat(k.block().x()).isEqualTo(256);
      assertThat(k.endNs()).isGreaterThan(k.startNs());
    });
  }

  @Test
  void kernelsOfOneStreamFollowEachOtherInLaunchOrder() {
    List<KernelRecord> kernels = run.kernels();
    for (int i = 1; i < kernels.size(); i++) {
      assertThat(kernels.get(i).startNs()).as("kernel %d starts after kernel %d ends (same stream)", i, i - 1)
          .isGreaterThanOrEqualTo(kernels.get(i - 1).endNs());
    }
  }

  @Test
  void copiesKeepDirectionSizeAndPageableVersusPinnedMemory() {
    List<CopyRecord> copies = run.records().stream().filter(r -> r instanceof CopyRecord).map(r -> (CopyRecord) r)
        .sorted(Comparator.comparingLong(CopyRecord::startNs)).toList();
    assertThat(copies).extracting(CopyRecord::kind, CopyRecord::srcKind, CopyRecord::dstKind, CopyRecord::bytes)
        .containsExactly(tuple(CopyKind.HTOD, MemoryKind.PAGEABLE, MemoryKind.DEVICE, BYTES),
            tuple(CopyKind.HTOD, MemoryKind.PINNED, MemoryKind.DEVICE, BYTES),
            tuple(CopyKind.DTOH, MemoryKind.DEVICE, MemoryKind.PINNED, BYTES));
    assertThat(copies.getFirst().stream()).isNotEqualTo(run.kernels().getFirst().stream());
  }

  @Test
  void theMemsetKeepsSizeValueAndMemoryKind() {
    assertThat(run.records()).filteredOn(r -> r instanceof MemsetRecord).singleElement().satisfies(r -> {
      MemsetRecord m = (MemsetRecord) r;
      assertThat(m.bytes()).isEqualTo(BYTES);
      assertThat(m.value()).isEqualTo(0x11);
      assertThat(m.memoryKind()).isEqualTo(MemoryKind.DEVICE);
    });
  }

  @Test
  void launchCallsAreNamedClassifiedAndCorrelatedWithTheirKernels() {
    List<ApiCallRecord> launches = run.launches();
    assertThat(launches).hasSize(LAUNCHES).allSatisfy(a -> assertThat(a.kind()).isEqualTo(ApiKind.LAUNCH));
    Set<Long> ids = launches.stream().map(ApiCallRecord::correlationId).collect(Collectors.toSet());
    assertThat(run.kernels()).extracting(KernelRecord::correlationId).allMatch(ids::contains);
    Map<ApiKind, Long> kinds = run.records().stream().filter(r -> r instanceof ApiCallRecord)
        .collect(Collectors.groupingBy(r -> ((ApiCallRecord) r).kind(), Collectors.counting()));
    assertThat(kinds).containsKeys(ApiKind.COPY, ApiKind.MEMSET, ApiKind.SYNC);
  }

  @Test
  void contextSynchronizationsAreRecorded() {
    assertThat(run.records()).filteredOn(r -> r instanceof SyncRecord s && s.kind() == SyncKind.CONTEXT)
        .isNotEmpty();
  }

  @Test
  void timestampsLieInsideTheHostClockWindowOfTheCalls() {
    long t0 = run.t0();
    long t1 = run.t1();
    Set<ApiCallRecord> launches = Set.copyOf(run.launches());
    for (TraceRecord r : run.records()) {
      if (r instanceof KernelRecord || r instanceof CopyRecord || r instanceof MemsetRecord) {
        assertThat(r.startNs()).as("%s starts inside the host window [%d, %d]", r, t0, t1)
            .isGreaterThanOrEqualTo(t0 - GPU_SLACK_NS);
        assertThat(r.endNs()).as("%s ends inside the host window [%d, %d]", r, t0, t1)
            .isLessThanOrEqualTo(t1 + GPU_SLACK_NS);
      } else if (r instanceof ApiCallRecord a && launches.contains(a)) {
        assertThat(a.startNs()).as("%s inside [%d, %d]", a, t0, t1).isBetween(t0 - API_SLACK_NS, t1 + API_SLACK_NS);
        assertThat(a.endNs()).as("%s inside [%d, %d]", a, t0, t1).isBetween(t0 - API_SLACK_NS, t1 + API_SLACK_NS);
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
