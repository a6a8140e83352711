package io.gitm.nvidia.cupti;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.gitm.device.UnsupportedFeatureException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * The CUPTI functions gitm calls, each resolved once into a typed handle from {@code libcupti.so.13}, which is
 * found in the CUDA toolkit's library folder (it is not on the loader path by default).
 */
final class Cupti {
  static final String SONAME = "libcupti.so.13";
  static final String FIX = "install the CUDA 13 toolkit (it ships " + SONAME + ") or point CUDA_HOME or "
      + "LD_LIBRARY_PATH at the folder that holds it";

  private static final Object LOCK = new Object();
  private static volatile Cupti instance;
  private static volatile RuntimeException loadFailure;

  final NativeLibrary library;
  private final MethodHandle getVersion;
  private final MethodHandle getTimestamp;
  private final MethodHandle registerCallbacks;
  private final MethodHandle enable;
  private final MethodHandle disable;
  private final MethodHandle getNextRecord;
  private final MethodHandle flushAll;
  private final MethodHandle getCallbackName;
  private final MethodHandle getNumDroppedRecords;
  private final java.util.Optional<MethodHandle> getStreamIdEx;

  private Cupti(NativeLibrary lib) {
    this.library = lib;
    getVersion = lib.require("cuptiGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    getTimestamp = lib.require("cuptiGetTimestamp", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    registerCallbacks = lib.require("cuptiActivityRegisterCallbacks", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    enable = lib.require("cuptiActivityEnable", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    disable = lib.require("cuptiActivityDisable", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    getNextRecord = lib.require("cuptiActivityGetNextRecord",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    flushAll = lib.require("cuptiActivityFlushAll", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    getCallbackName = lib.require("cuptiGetCallbackName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    getNumDroppedRecords = lib.require("cuptiActivityGetNumDroppedRecords",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    getStreamIdEx = lib.function("cuptiGetStreamIdEx", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
        java.lang.foreign.ValueLayout.JAVA_BYTE, ADDRESS));
  }

  /**
   * The id CUPTI gives {@code stream} of {@code context} in its activity records ({@code cuptiGetStreamIdEx}; the
   * NULL stream is the context's legacy default stream); empty where this CUPTI lacks the function or refuses.
   */
  java.util.OptionalInt streamId(MemorySegment context, MemorySegment stream) {
    if (getStreamIdEx.isEmpty()) {
      return java.util.OptionalInt.empty();
    }
    try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
      MemorySegment id = a.allocate(JAVA_INT);
      int rc = (int) getStreamIdEx.get().invokeExact(context, stream, (byte) 0, id);
      return rc == 0 ? java.util.OptionalInt.of(id.get(JAVA_INT, 0)) : java.util.OptionalInt.empty();
    } catch (Throwable t) {
      return java.util.OptionalInt.empty();
    }
  }

  /** The process's CUPTI, loaded on first use; an {@link UnsupportedFeatureException} says why it is missing. */
  static Cupti instance() {
    Cupti c = instance;
    if (c != null) {
      return c;
    }
    synchronized (LOCK) {
      if (instance == null && loadFailure == null) {
        List<java.nio.file.Path> folders = NativeLibrary.toolkitFolders(System.getenv());
        try {
          NativeLibrary lib = NativeLibrary.find(SONAME, folders).orElseThrow(() -> new UnsupportedFeatureException(
              "dlopen(" + SONAME + ")", "not found in " + folders + " nor on the loader path; " + FIX));
          instance = new Cupti(lib);
        } catch (RuntimeException e) {
          loadFailure = e;
        }
      }
      if (instance == null) {
        throw loadFailure;
      }
      return instance;
    }
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }

  static void check(String function, int rc) {
    if (rc != 0) {
      throw new CuptiException(function, rc, "");
    }
  }

  int version() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(JAVA_INT);
      check("cuptiGetVersion", (int) getVersion.invokeExact(v));
      return v.get(JAVA_INT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** CUPTI's current timestamp in ns (CLOCK_REALTIME on Linux unless a timestamp callback is registered). */
  long timestamp() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(JAVA_LONG);
      check("cuptiGetTimestamp", (int) getTimestamp.invokeExact(v));
      return v.get(JAVA_LONG, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  int registerCallbacks(MemorySegment requested, MemorySegment completed) {
    try {
      return (int) registerCallbacks.invokeExact(requested, completed);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  int enable(int kind) {
    try {
      return (int) enable.invokeExact(kind);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  int disable(int kind) {
    try {
      return (int) disable.invokeExact(kind);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Advances {@code cursor} (a {@code CUpti_Activity*} slot) to the next record; returns the CUptiResult. */
  int nextRecord(MemorySegment buffer, long validSize, MemorySegment cursor) {
    try {
      return (int) getNextRecord.invokeExact(buffer, validSize, cursor);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  int flushAll(int flag) {
    try {
      return (int) flushAll.invokeExact(flag);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The API function name of {@code cbid} in {@code domain} (1 driver, 2 runtime), or null when CUPTI has none. */
  String callbackName(int domain, int cbid) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment out = a.allocate(ADDRESS);
      int rc = (int) getCallbackName.invokeExact(domain, cbid, out);
      MemorySegment p = out.get(ADDRESS, 0);
      return rc != 0 || p.equals(MemorySegment.NULL) ? null : p.reinterpret(Integer.MAX_VALUE).getString(0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Records CUPTI dropped for lack of buffer space (global buffers: context NULL, stream 0). */
  long droppedRecords() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment out = a.allocate(JAVA_LONG);
      int rc = (int) getNumDroppedRecords.invokeExact(MemorySegment.NULL, 0, out);
      return rc == 0 ? out.get(JAVA_LONG, 0) : -1;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
