package io.gitm.nvidia.cupti;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Byte offsets of the CUPTI activity record fields gitm decodes, for the record versions of CUDA 13.0 (CUPTI API
 * version 130001, {@code cupti_activity.h}). Every record starts with its {@code CUpti_ActivityKind} as a 32-bit
 * integer. {@code CuptiLayoutTest} compiles a C program against the installed headers and compares each number.
 */
final class CuptiLayout {
  private CuptiLayout() {
  }

  static final int API_VERSION = 130001;

  // CUpti_ActivityKind values.
  static final int KIND_MEMCPY = 1;
  static final int KIND_MEMSET = 2;
  static final int KIND_KERNEL = 3;
  static final int KIND_DRIVER = 4;
  static final int KIND_RUNTIME = 5;
  static final int KIND_CONCURRENT_KERNEL = 10;
  static final int KIND_OVERHEAD = 17;
  static final int KIND_SYNCHRONIZATION = 38;

  /** CUpti_ActivityKernel10 (CONCURRENT_KERNEL and KERNEL records). */
  static final class Kernel {
    static final long SIZE = 216;
    static final long REGISTERS_PER_THREAD = 6; // u16
    static final long START = 16; // u64
    static final long END = 24; // u64
    static final long DEVICE_ID = 40; // u32
    static final long CONTEXT_ID = 44; // u32
    static final long STREAM_ID = 48; // u32
    static final long GRID_X = 52; // i32, then gridY, gridZ, blockX, blockY, blockZ at +4 each
    static final long STATIC_SHARED = 76; // i32
    static final long DYNAMIC_SHARED = 80; // i32
    static final long CORRELATION_ID = 92; // u32
    static final long NAME = 104; // const char*
  }

  /** CUpti_ActivityMemcpy6. */
  static final class Memcpy {
    static final long SIZE = 96;
    static final long COPY_KIND = 4; // u8
    static final long SRC_KIND = 5; // u8
    static final long DST_KIND = 6; // u8
    static final long BYTES = 8; // u64
    static final long START = 16;
    static final long END = 24;
    static final long DEVICE_ID = 32; // u32
    static final long CONTEXT_ID = 36; // u32
    static final long STREAM_ID = 40; // u32
    static final long CORRELATION_ID = 44; // u32
  }

  /** CUpti_ActivityMemset4. */
  static final class Memset {
    static final long SIZE = 88;
    static final long VALUE = 4; // u32
    static final long BYTES = 8; // u64
    static final long START = 16;
    static final long END = 24;
    static final long DEVICE_ID = 32;
    static final long CONTEXT_ID = 36;
    static final long STREAM_ID = 40;
    static final long CORRELATION_ID = 44;
    static final long MEMORY_KIND = 50; // u16
  }

  /** CUpti_ActivitySynchronization2. */
  static final class Sync {
    static final long SIZE = 56;
    static final long TYPE = 4; // u32 CUpti_ActivitySynchronizationType
    static final long START = 8;
    static final long END = 16;
    static final long CORRELATION_ID = 24;
    static final long CONTEXT_ID = 28;
    static final long STREAM_ID = 32;
  }

  /** CUpti_ActivityAPI (DRIVER and RUNTIME records). */
  static final class Api {
    static final long SIZE = 40;
    static final long CBID = 4; // u32
    static final long START = 8;
    static final long END = 16;
    static final long THREAD_ID = 28; // u32
    static final long CORRELATION_ID = 32; // u32
  }

  /** CUpti_ActivityOverhead3. */
  static final class Overhead {
    static final long SIZE = 56;
    static final long OVERHEAD_KIND = 4; // u32 CUpti_ActivityOverheadKind
    static final long OBJECT_KIND = 8; // u32 CUpti_ActivityObjectKind
    static final long OBJECT_ID = 12; // CUpti_ActivityObjectKindId union
    static final long OBJECT_THREAD_ID = 4; // offset of pt.threadId inside the union
    static final long START = 24;
    static final long END = 32;
  }

  /** The largest record decoded; each record pointer is viewed as this many bytes. */
  static final long MAX_SIZE = Kernel.SIZE;

  /** Every pinned number, named as {@code src/test/resources/cupti/layouts.c} prints it. */
  static Map<String, Long> pinned() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("CUPTI_API_VERSION", (long) API_VERSION);
    String k = "CUpti_ActivityKernel10.";
    m.put(k + "sizeof", Kernel.SIZE);
    m.put(k + "kind", 0L);
    m.put(k + "registersPerThread", Kernel.REGISTERS_PER_THREAD);
    m.put(k + "start", Kernel.START);
    m.put(k + "end", Kernel.END);
    m.put(k + "deviceId", Kernel.DEVICE_ID);
    m.put(k + "contextId", Kernel.CONTEXT_ID);
    m.put(k + "streamId", Kernel.STREAM_ID);
    String[] dims = {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"};
    for (int i = 0; i < dims.length; i++) {
      m.put(k + dims[i], Kernel.GRID_X + 4L * i);
    }
    m.put(k + "staticSharedMemory", Kernel.STATIC_SHARED);
    m.put(k + "dynamicSharedMemory", Kernel.DYNAMIC_SHARED);
    m.put(k + "correlationId", Kernel.CORRELATION_ID);
    m.put(k + "name", Kernel.NAME);
    String c = "CUpti_ActivityMemcpy6.";
    m.put(c + "sizeof", Memcpy.SIZE);
    m.put(c + "copyKind", Memcpy.COPY_KIND);
    m.put(c + "srcKind", Memcpy.SRC_KIND);
    m.put(c + "dstKind", Memcpy.DST_KIND);
    m.put(c + "bytes", Memcpy.BYTES);
    m.put(c + "start", Memcpy.START);
    m.put(c + "end", Memcpy.END);
    m.put(c + "deviceId", Memcpy.DEVICE_ID);
    m.put(c + "contextId", Memcpy.CONTEXT_ID);
    m.put(c + "streamId", Memcpy.STREAM_ID);
    m.put(c + "correlationId", Memcpy.CORRELATION_ID);
    String s = "CUpti_ActivityMemset4.";
    m.put(s + "sizeof", Memset.SIZE);
    m.put(s + "value", Memset.VALUE);
    m.put(s + "bytes", Memset.BYTES);
    m.put(s + "start", Memset.START);
    m.put(s + "end", Memset.END);
    m.put(s + "deviceId", Memset.DEVICE_ID);
    m.put(s + "contextId", Memset.CONTEXT_ID);
    m.put(s + "streamId", Memset.STREAM_ID);
    m.put(s + "correlationId", Memset.CORRELATION_ID);
    m.put(s + "memoryKind", Memset.MEMORY_KIND);
    String y = "CUpti_ActivitySynchronization2.";
    m.put(y + "sizeof", Sync.SIZE);
    m.put(y + "type", Sync.TYPE);
    m.put(y + "start", Sync.START);
    m.put(y + "end", Sync.END);
    m.put(y + "correlationId", Sync.CORRELATION_ID);
    m.put(y + "contextId", Sync.CONTEXT_ID);
    m.put(y + "streamId", Sync.STREAM_ID);
    String a = "CUpti_ActivityAPI.";
    m.put(a + "sizeof", Api.SIZE);
    m.put(a + "cbid", Api.CBID);
    m.put(a + "start", Api.START);
    m.put(a + "end", Api.END);
    m.put(a + "threadId", Api.THREAD_ID);
    m.put(a + "correlationId", Api.CORRELATION_ID);
    String o = "CUpti_ActivityOverhead3.";
    m.put(o + "sizeof", Overhead.SIZE);
    m.put(o + "overheadKind", Overhead.OVERHEAD_KIND);
    m.put(o + "objectKind", Overhead.OBJECT_KIND);
    m.put(o + "objectId", Overhead.OBJECT_ID);
    m.put(o + "start", Overhead.START);
    m.put(o + "end", Overhead.END);
    m.put("CUpti_ActivityObjectKindId.pt.threadId", Overhead.OBJECT_THREAD_ID);
    return m;
  }
}
