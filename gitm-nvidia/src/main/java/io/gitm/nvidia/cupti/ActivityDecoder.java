package io.gitm.nvidia.cupti;

import io.gitm.nvidia.cupti.CuptiLayout.Api;
import io.gitm.nvidia.cupti.CuptiLayout.Kernel;
import io.gitm.nvidia.cupti.CuptiLayout.Memcpy;
import io.gitm.nvidia.cupti.CuptiLayout.Memset;
import io.gitm.nvidia.cupti.CuptiLayout.Overhead;
import io.gitm.nvidia.cupti.CuptiLayout.Sync;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ApiKinds;
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
import io.gitm.trace.TraceRecord;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Turns one CUPTI activity record (native memory laid out as {@link CuptiLayout} says) into a trace record, with
 * timestamps moved to the host monotonic clock by subtracting {@code offsetNs} (CUPTI time minus host time).
 * Records of kinds gitm does not model, and records without valid timestamps, decode to {@code null} and are
 * counted. Thread-safe.
 */
final class ActivityDecoder {
  /** The name of a callback id in a CUPTI callback domain (1 driver API, 2 runtime API). */
  @FunctionalInterface
  interface CallbackNames {
    String name(int domain, int cbid);
  }

  private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;

  private final CallbackNames callbackNames;
  private final long offsetNs;
  private final Map<Long, ApiName> apiNames = new ConcurrentHashMap<>();
  /** Context id to device ordinal, learned from kernel, copy and memset records (synchronization has no device). */
  private final Map<Integer, Integer> contextDevice = new ConcurrentHashMap<>();
  private final LongAdder invalid = new LongAdder();
  private final LongAdder ignored = new LongAdder();

  private record ApiName(String name, ApiKind kind) {
  }

  ActivityDecoder(CallbackNames callbackNames, long offsetNs) {
    this.callbackNames = callbackNames;
    this.offsetNs = offsetNs;
  }

  /** Records without usable timestamps (CUPTI writes 0 when it could not time an activity). */
  long invalid() {
    return invalid.sum();
  }

  /** Records of activity kinds gitm does not model. */
  long ignored() {
    return ignored.sum();
  }

  /** Decodes the record at {@code r}, which must be readable for the size of its kind. */
  TraceRecord decode(MemorySegment r) {
    int kind = r.get(I32, 0);
    return switch (kind) {
      case CuptiLayout.KIND_CONCURRENT_KERNEL, CuptiLayout.KIND_KERNEL -> kernel(r);
      case CuptiLayout.KIND_MEMCPY -> memcpy(r);
      case CuptiLayout.KIND_MEMSET -> memset(r);
      case CuptiLayout.KIND_SYNCHRONIZATION -> sync(r);
      case CuptiLayout.KIND_DRIVER -> api(r, 1);
      case CuptiLayout.KIND_RUNTIME -> api(r, 2);
      case CuptiLayout.KIND_OVERHEAD -> overhead(r);
      default -> {
        ignored.increment();
        yield null;
      }
    };
  }

  private boolean badInterval(long start, long end) {
    if (start == 0 || end == 0 || Long.compareUnsigned(end, start) < 0) {
      invalid.increment();
      return true;
    }
    return false;
  }

  private TraceRecord kernel(MemorySegment r) {
    long start = r.get(I64, Kernel.START);
    long end = r.get(I64, Kernel.END);
    if (badInterval(start, end)) {
      return null;
    }
    int device = r.get(I32, Kernel.DEVICE_ID);
    contextDevice.putIfAbsent(r.get(I32, Kernel.CONTEXT_ID), device);
    MemorySegment namePtr = r.get(ValueLayout.ADDRESS_UNALIGNED, Kernel.NAME);
    String name = namePtr.equals(MemorySegment.NULL) ? "<unnamed kernel>"
        : namePtr.reinterpret(Integer.MAX_VALUE).getString(0);
    long g = Kernel.GRID_X;
    Dim3 grid = new Dim3(r.get(I32, g), r.get(I32, g + 4), r.get(I32, g + 8));
    Dim3 block = new Dim3(r.get(I32, g + 12), r.get(I32, g + 16), r.get(I32, g + 20));
    return new KernelRecord(name.isEmpty() ? "<unnamed kernel>" : name, device, r.get(I32, Kernel.STREAM_ID),
        Integer.toUnsignedLong(r.get(I32, Kernel.CORRELATION_ID)), start - offsetNs, end - offsetNs, grid, block,
        Short.toUnsignedInt(r.get(I16, Kernel.REGISTERS_PER_THREAD)), r.get(I32, Kernel.STATIC_SHARED),
        r.get(I32, Kernel.DYNAMIC_SHARED));
  }

  private TraceRecord memcpy(MemorySegment r) {
    long start = r.get(I64, Memcpy.START);
    long end = r.get(I64, Memcpy.END);
    if (badInterval(start, end)) {
      return null;
    }
    int device = r.get(I32, Memcpy.DEVICE_ID);
    contextDevice.putIfAbsent(r.get(I32, Memcpy.CONTEXT_ID), device);
    return new CopyRecord(copyKind(Byte.toUnsignedInt(r.get(ValueLayout.JAVA_BYTE, Memcpy.COPY_KIND))),
        r.get(I64, Memcpy.BYTES), memoryKind(Byte.toUnsignedInt(r.get(ValueLayout.JAVA_BYTE, Memcpy.SRC_KIND))),
        memoryKind(Byte.toUnsignedInt(r.get(ValueLayout.JAVA_BYTE, Memcpy.DST_KIND))), device,
        r.get(I32, Memcpy.STREAM_ID), Integer.toUnsignedLong(r.get(I32, Memcpy.CORRELATION_ID)), start - offsetNs,
        end - offsetNs);
  }

  private TraceRecord memset(MemorySegment r) {
    long start = r.get(I64, Memset.START);
    long end = r.get(I64, Memset.END);
    if (badInterval(start, end)) {
      return null;
    }
    int device = r.get(I32, Memset.DEVICE_ID);
    contextDevice.putIfAbsent(r.get(I32, Memset.CONTEXT_ID), device);
    return new MemsetRecord(r.get(I64, Memset.BYTES), r.get(I32, Memset.VALUE),
        memoryKind(Short.toUnsignedInt(r.get(I16, Memset.MEMORY_KIND))), device, r.get(I32, Memset.STREAM_ID),
        Integer.toUnsignedLong(r.get(I32, Memset.CORRELATION_ID)), start - offsetNs, end - offsetNs);
  }

  private TraceRecord sync(MemorySegment r) {
    long start = r.get(I64, Sync.START);
    long end = r.get(I64, Sync.END);
    if (badInterval(start, end)) {
      return null;
    }
    SyncKind kind = switch (r.get(I32, Sync.TYPE)) {
      case 1 -> SyncKind.EVENT;
      case 2 -> SyncKind.STREAM_WAIT_EVENT;
      case 3 -> SyncKind.STREAM;
      case 4 -> SyncKind.CONTEXT;
      default -> SyncKind.UNKNOWN;
    };
    int stream = kind == SyncKind.CONTEXT ? -1 : r.get(I32, Sync.STREAM_ID);
    int device = contextDevice.getOrDefault(r.get(I32, Sync.CONTEXT_ID), -1);
    return new SyncRecord(kind, device, stream, Integer.toUnsignedLong(r.get(I32, Sync.CORRELATION_ID)),
        start - offsetNs, end - offsetNs);
  }

  private TraceRecord api(MemorySegment r, int domain) {
    long start = r.get(I64, Api.START);
    long end = r.get(I64, Api.END);
    if (badInterval(start, end)) {
      return null;
    }
    int cbid = r.get(I32, Api.CBID);
    ApiName n = apiNames.computeIfAbsent(((long) domain << 32) | Integer.toUnsignedLong(cbid), k -> {
      String name = callbackNames.name(domain, cbid);
      if (name == null || name.isEmpty()) {
        name = (domain == 1 ? "driver#" : "runtime#") + Integer.toUnsignedString(cbid);
      }
      return new ApiName(name, ApiKinds.of(name));
    });
    return new ApiCallRecord(n.kind(), n.name(), Integer.toUnsignedLong(r.get(I32, Api.THREAD_ID)),
        Integer.toUnsignedLong(r.get(I32, Api.CORRELATION_ID)), start - offsetNs, end - offsetNs);
  }

  private TraceRecord overhead(MemorySegment r) {
    long start = r.get(I64, Overhead.START);
    long end = r.get(I64, Overhead.END);
    if (badInterval(start, end)) {
      return null;
    }
    int objectKind = r.get(I32, Overhead.OBJECT_KIND);
    long thread = objectKind == 1 || objectKind == 2
        ? Integer.toUnsignedLong(r.get(I32, Overhead.OBJECT_ID + Overhead.OBJECT_THREAD_ID)) : -1;
    return new OverheadRecord(overheadKind(r.get(I32, Overhead.OVERHEAD_KIND)), thread, start - offsetNs,
        end - offsetNs);
  }

  /** CUpti_ActivityMemcpyKind to the direction gitm models (array copies count as device-side). */
  static CopyKind copyKind(int cupti) {
    return switch (cupti) {
      case 1, 3 -> CopyKind.HTOD; // HTOD, HTOA
      case 2, 4 -> CopyKind.DTOH; // DTOH, ATOH
      case 5, 6, 7, 8 -> CopyKind.DTOD; // ATOA, ATOD, DTOA, DTOD
      case 9 -> CopyKind.HTOH;
      case 10 -> CopyKind.PTOP;
      default -> CopyKind.UNKNOWN;
    };
  }

  /** CUpti_ActivityMemoryKind to gitm's MemoryKind (static device and managed memory fold into their kinds). */
  static MemoryKind memoryKind(int cupti) {
    return switch (cupti) {
      case 1 -> MemoryKind.PAGEABLE;
      case 2 -> MemoryKind.PINNED;
      case 3, 6 -> MemoryKind.DEVICE; // DEVICE, DEVICE_STATIC
      case 4 -> MemoryKind.ARRAY;
      case 5, 7 -> MemoryKind.MANAGED; // MANAGED, MANAGED_STATIC
      default -> MemoryKind.UNKNOWN;
    };
  }

  /** CUpti_ActivityOverheadKind (CUPTI's own work in bits 16+, driver work below) to gitm's OverheadKind. */
  static OverheadKind overheadKind(int cupti) {
    return switch (cupti) {
      case 1 << 16 -> OverheadKind.BUFFER_FLUSH;
      case 2 << 16 -> OverheadKind.INSTRUMENTATION;
      case 3 << 16, 7 << 16 -> OverheadKind.RESOURCE; // CUPTI_RESOURCE, ACTIVITY_BUFFER_REQUEST
      default -> OverheadKind.OTHER;
    };
  }
}
