package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.nvidia.cupti.CuptiLayout.Api;
import io.gitm.nvidia.cupti.CuptiLayout.Kernel;
import io.gitm.nvidia.cupti.CuptiLayout.Memcpy;
import io.gitm.nvidia.cupti.CuptiLayout.Memset;
import io.gitm.nvidia.cupti.CuptiLayout.Overhead;
import io.gitm.nvidia.cupti.CuptiLayout.Sync;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadKind;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Records laid out in native memory exactly as CUDA 13's CUPTI writes them (offsets from {@link CuptiLayout}, which
 * CuptiLayoutTest checks against the headers) decode into the trace records with every field, the enum mappings,
 * and timestamps moved to the host clock by the measured offset.
 */
class ActivityDecoderTest {
  static final long OFFSET = 1_700_000_000_000_000_000L;
  final Arena arena = Arena.ofConfined();
  final AtomicInteger nameLookups = new AtomicInteger();
  final ActivityDecoder decoder = new ActivityDecoder((domain, cbid) -> {
    nameLookups.incrementAndGet();
    return domain == 1 && cbid == 307 ? "cuLaunchKernel" : domain == 2 && cbid == 211 ? "cudaLaunchKernel_v7000"
        : null;
  }, OFFSET);

  @AfterEach
  void close() {
    arena.close();
  }

  MemorySegment record(int kind, long size) {
    MemorySegment r = arena.allocate(CuptiLayout.MAX_SIZE, 8);
    r.set(ValueLayout.JAVA_INT, 0, kind);
    return r;
  }

  @Test
  void aConcurrentKernelRecordDecodesWithNameShapeResourcesAndHostTimes() {
    MemorySegment r = record(CuptiLayout.KIND_CONCURRENT_KERNEL, Kernel.SIZE);
    r.set(ValueLayout.JAVA_SHORT, Kernel.REGISTERS_PER_THREAD, (short) 40);
    r.set(ValueLayout.JAVA_LONG, Kernel.START, OFFSET + 1000);
    r.set(ValueLayout.JAVA_LONG, Kernel.END, OFFSET + 3500);
    r.set(ValueLayout.JAVA_INT, Kernel.DEVICE_ID, 1);
    r.set(ValueLayout.JAVA_INT, Kernel.CONTEXT_ID, 5);
    r.set(ValueLayout.JAVA_INT, Kernel.STREAM_ID, 13);
    int[] dims = {64, 2, 1, 256, 1, 1};
    for (int i = 0; i < 6; i++) {
      r.set(ValueLayout.JAVA_INT, Kernel.GRID_X + 4L * i, dims[i]);
    }
    r.set(ValueLayout.JAVA_INT, Kernel.STATIC_SHARED, 2048);
    r.set(ValueLayout.JAVA_INT, Kernel.DYNAMIC_SHARED, 512);
    r.set(ValueLayout.JAVA_INT, Kernel.CORRELATION_ID, 0xFFFF_FFF0);
    r.set(ValueLayout.ADDRESS, Kernel.NAME, arena.allocateFrom("_Z6saxpyifPKfPf"));
    KernelRecord k = (KernelRecord) decoder.decode(r);
    assertThat(k).isEqualTo(new KernelRecord("_Z6saxpyifPKfPf", 1, 13, 0xFFFF_FFF0L, 1000, 3500, new Dim3(64, 2, 1),
        new Dim3(256, 1, 1), 40, 2048, 512));
  }

  @Test
  void aMemcpyRecordKeepsDirectionAndBothMemoryKinds() {
    MemorySegment r = record(CuptiLayout.KIND_MEMCPY, Memcpy.SIZE);
    r.set(ValueLayout.JAVA_BYTE, Memcpy.COPY_KIND, (byte) 1); // HTOD
    r.set(ValueLayout.JAVA_BYTE, Memcpy.SRC_KIND, (byte) 1); // PAGEABLE
    r.set(ValueLayout.JAVA_BYTE, Memcpy.DST_KIND, (byte) 3); // DEVICE
    r.set(ValueLayout.JAVA_LONG, Memcpy.BYTES, 1L << 33);
    r.set(ValueLayout.JAVA_LONG, Memcpy.START, OFFSET + 10);
    r.set(ValueLayout.JAVA_LONG, Memcpy.END, OFFSET + 20);
    r.set(ValueLayout.JAVA_INT, Memcpy.DEVICE_ID, 0);
    r.set(ValueLayout.JAVA_INT, Memcpy.STREAM_ID, 7);
    r.set(ValueLayout.JAVA_INT, Memcpy.CORRELATION_ID, 42);
    assertThat(decoder.decode(r)).isEqualTo(new CopyRecord(CopyKind.HTOD, 1L << 33, MemoryKind.PAGEABLE,
        MemoryKind.DEVICE, 0, 7, 42, 10, 20));
    r.set(ValueLayout.JAVA_BYTE, Memcpy.COPY_KIND, (byte) 2); // DTOH
    r.set(ValueLayout.JAVA_BYTE, Memcpy.SRC_KIND, (byte) 3);
    r.set(ValueLayout.JAVA_BYTE, Memcpy.DST_KIND, (byte) 2); // PINNED
    assertThat(((CopyRecord) decoder.decode(r)).dstKind()).isEqualTo(MemoryKind.PINNED);
  }

  @Test
  void aMemsetRecordDecodesValueSizeAndMemoryKind() {
    MemorySegment r = record(CuptiLayout.KIND_MEMSET, Memset.SIZE);
    r.set(ValueLayout.JAVA_INT, Memset.VALUE, 0xAB);
    r.set(ValueLayout.JAVA_LONG, Memset.BYTES, 4096);
    r.set(ValueLayout.JAVA_LONG, Memset.START, OFFSET + 5);
    r.set(ValueLayout.JAVA_LONG, Memset.END, OFFSET + 6);
    r.set(ValueLayout.JAVA_INT, Memset.DEVICE_ID, 0);
    r.set(ValueLayout.JAVA_INT, Memset.STREAM_ID, 3);
    r.set(ValueLayout.JAVA_INT, Memset.CORRELATION_ID, 9);
    r.set(ValueLayout.JAVA_SHORT, Memset.MEMORY_KIND, (short) 3);
    assertThat(decoder.decode(r)).isEqualTo(new MemsetRecord(4096, 0xAB, MemoryKind.DEVICE, 0, 3, 9, 5, 6));
  }

  @Test
  void aContextSynchronizationHasNoStreamAndTheDeviceOfItsContext() {
    MemorySegment k = record(CuptiLayout.KIND_MEMSET, Memset.SIZE);
    k.set(ValueLayout.JAVA_LONG, Memset.START, OFFSET + 1);
    k.set(ValueLayout.JAVA_LONG, Memset.END, OFFSET + 2);
    k.set(ValueLayout.JAVA_INT, Memset.DEVICE_ID, 3);
    k.set(ValueLayout.JAVA_INT, Memset.CONTEXT_ID, 77);
    decoder.decode(k);
    MemorySegment r = record(CuptiLayout.KIND_SYNCHRONIZATION, Sync.SIZE);
    r.set(ValueLayout.JAVA_INT, Sync.TYPE, 4);
    r.set(ValueLayout.JAVA_LONG, Sync.START, OFFSET + 100);
    r.set(ValueLayout.JAVA_LONG, Sync.END, OFFSET + 900);
    r.set(ValueLayout.JAVA_INT, Sync.CORRELATION_ID, 12);
    r.set(ValueLayout.JAVA_INT, Sync.CONTEXT_ID, 77);
    r.set(ValueLayout.JAVA_INT, Sync.STREAM_ID, 0xFFFF_FFFF);
    assertThat(decoder.decode(r)).isEqualTo(new SyncRecord(SyncKind.CONTEXT, 3, -1, 12, 100, 900));
    r.set(ValueLayout.JAVA_INT, Sync.TYPE, 3);
    r.set(ValueLayout.JAVA_INT, Sync.STREAM_ID, 14);
    r.set(ValueLayout.JAVA_INT, Sync.CONTEXT_ID, 78);
    assertThat(decoder.decode(r)).isEqualTo(new SyncRecord(SyncKind.STREAM, -1, 14, 12, 100, 900));
  }

  @Test
  void apiRecordsAreNamedByCallbackIdAndClassifiedWithOneLookupPerId() {
    MemorySegment r = record(CuptiLayout.KIND_DRIVER, Api.SIZE);
    r.set(ValueLayout.JAVA_INT, Api.CBID, 307);
    r.set(ValueLayout.JAVA_LONG, Api.START, OFFSET + 50);
    r.set(ValueLayout.JAVA_LONG, Api.END, OFFSET + 60);
    r.set(ValueLayout.JAVA_INT, Api.THREAD_ID, 0xF000_0001);
    r.set(ValueLayout.JAVA_INT, Api.CORRELATION_ID, 99);
    ApiCallRecord expected = new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 0xF000_0001L, 99, 50, 60);
    assertThat(decoder.decode(r)).isEqualTo(expected);
    assertThat(decoder.decode(r)).isEqualTo(expected);
    assertThat(nameLookups).hasValue(1);
    r.set(ValueLayout.JAVA_INT, 0, CuptiLayout.KIND_RUNTIME);
    r.set(ValueLayout.JAVA_INT, Api.CBID, 211);
    assertThat(((ApiCallRecord) decoder.decode(r)).name()).isEqualTo("cudaLaunchKernel_v7000");
    r.set(ValueLayout.JAVA_INT, Api.CBID, 5);
    assertThat(decoder.decode(r)).isEqualTo(new ApiCallRecord(ApiKind.OTHER, "runtime#5", 0xF000_0001L, 99, 50, 60));
  }

  @Test
  void overheadRecordsMapCuptiKindsAndCarryTheThreadOnlyForThreadObjects() {
    MemorySegment r = record(CuptiLayout.KIND_OVERHEAD, Overhead.SIZE);
    r.set(ValueLayout.JAVA_INT, Overhead.OVERHEAD_KIND, 1 << 16);
    r.set(ValueLayout.JAVA_INT, Overhead.OBJECT_KIND, 2);
    r.set(ValueLayout.JAVA_INT, Overhead.OBJECT_ID, 1234);
    r.set(ValueLayout.JAVA_INT, Overhead.OBJECT_ID + Overhead.OBJECT_THREAD_ID, 5678);
    r.set(ValueLayout.JAVA_LONG, Overhead.START, OFFSET + 7);
    r.set(ValueLayout.JAVA_LONG, Overhead.END, OFFSET + 8);
    assertThat(decoder.decode(r)).isEqualTo(new OverheadRecord(OverheadKind.BUFFER_FLUSH, 5678, 7, 8));
    r.set(ValueLayout.JAVA_INT, Overhead.OVERHEAD_KIND, 2 << 16);
    r.set(ValueLayout.JAVA_INT, Overhead.OBJECT_KIND, 3);
    assertThat(decoder.decode(r)).isEqualTo(new OverheadRecord(OverheadKind.INSTRUMENTATION, -1, 7, 8));
  }

  @Test
  void recordsWithoutTimestampsAndUnmodelledKindsAreCountedNotDelivered() {
    MemorySegment k = record(CuptiLayout.KIND_CONCURRENT_KERNEL, Kernel.SIZE);
    assertThat(decoder.decode(k)).isNull();
    MemorySegment backwards = record(CuptiLayout.KIND_MEMSET, Memset.SIZE);
    backwards.set(ValueLayout.JAVA_LONG, Memset.START, OFFSET + 10);
    backwards.set(ValueLayout.JAVA_LONG, Memset.END, OFFSET + 9);
    assertThat(decoder.decode(backwards)).isNull();
    assertThat(decoder.decode(record(11, 24))).isNull(); // CUPTI_ACTIVITY_KIND_NAME
    assertThat(decoder.invalid()).isEqualTo(2);
    assertThat(decoder.ignored()).isEqualTo(1);
  }

  @Test
  void everyCuptiCopyAndMemoryKindHasAMapping() {
    assertThat(ActivityDecoder.copyKind(3)).isEqualTo(CopyKind.HTOD);
    assertThat(ActivityDecoder.copyKind(4)).isEqualTo(CopyKind.DTOH);
    assertThat(ActivityDecoder.copyKind(8)).isEqualTo(CopyKind.DTOD);
    assertThat(ActivityDecoder.copyKind(9)).isEqualTo(CopyKind.HTOH);
    assertThat(ActivityDecoder.copyKind(10)).isEqualTo(CopyKind.PTOP);
    assertThat(ActivityDecoder.copyKind(0)).isEqualTo(CopyKind.UNKNOWN);
    assertThat(ActivityDecoder.memoryKind(6)).isEqualTo(MemoryKind.DEVICE);
    assertThat(ActivityDecoder.memoryKind(5)).isEqualTo(MemoryKind.MANAGED);
    assertThat(ActivityDecoder.memoryKind(7)).isEqualTo(MemoryKind.MANAGED);
    assertThat(ActivityDecoder.memoryKind(4)).isEqualTo(MemoryKind.ARRAY);
    assertThat(ActivityDecoder.memoryKind(0)).isEqualTo(MemoryKind.UNKNOWN);
    assertThat(ActivityDecoder.overheadKind(3 << 16)).isEqualTo(OverheadKind.RESOURCE);
    assertThat(ActivityDecoder.overheadKind(1)).isEqualTo(OverheadKind.OTHER);
  }
}
