package io.gitm.nvidia.cupti;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.gitm.device.UnsupportedFeatureException;
import io.gitm.nvidia.ffm.NativeFunction;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.nvidia.ffm.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.OptionalInt;

/**
 * The CUPTI functions gitm calls, each resolved once into a typed handle from the library that
 * {@link NativeLibraries#find NativeLibraries.find("cupti")} opens: the same search, in the same order, as
 * {@code gitm doctor}'s {@code libcupti} check, so that the two agree on whether and where CUPTI is found.
 */
final class Cupti {
  static final String FIX = "install the CUDA 13 toolkit (it ships libcupti.so.13) and add the folder that holds it"
      + " to LD_LIBRARY_PATH or GITM_CUDA_LIB, or point CUDA_HOME at the toolkit";

  private static final NativeFunction GET_VERSION = fn("cuptiGetVersion", JAVA_INT, ADDRESS);
  private static final NativeFunction GET_TIMESTAMP = fn("cuptiGetTimestamp", JAVA_INT, ADDRESS);
  private static final NativeFunction REGISTER_CALLBACKS = fn("cuptiActivityRegisterCallbacks", JAVA_INT, ADDRESS,
      ADDRESS);
  private static final NativeFunction ENABLE = fn("cuptiActivityEnable", JAVA_INT, JAVA_INT);
  private static final NativeFunction DISABLE = fn("cuptiActivityDisable", JAVA_INT, JAVA_INT);
  private static final NativeFunction GET_NEXT_RECORD = fn("cuptiActivityGetNextRecord", JAVA_INT, ADDRESS,
      JAVA_LONG, ADDRESS);
  private static final NativeFunction FLUSH_ALL = fn("cuptiActivityFlushAll", JAVA_INT, JAVA_INT);
  private static final NativeFunction GET_CALLBACK_NAME = fn("cuptiGetCallbackName", JAVA_INT, JAVA_INT, JAVA_INT,
      ADDRESS);
  private static final NativeFunction GET_NUM_DROPPED_RECORDS = fn("cuptiActivityGetNumDroppedRecords", JAVA_INT,
      ADDRESS, JAVA_INT, ADDRESS);
  /** Optional: where this CUPTI lacks it, stream ids are unknown. */
  private static final NativeFunction GET_STREAM_ID_EX = fn("cuptiGetStreamIdEx", JAVA_INT, ADDRESS, ADDRESS,
      JAVA_BYTE, ADDRESS);
  /** The functions without which the tracer cannot run: {@link #instance()} resolves them all. */
  private static final List<NativeFunction> REQUIRED = List.of(GET_VERSION, GET_TIMESTAMP, REGISTER_CALLBACKS,
      ENABLE, DISABLE, GET_NEXT_RECORD, FLUSH_ALL, GET_CALLBACK_NAME, GET_NUM_DROPPED_RECORDS);

  private static final Object LOCK = new Object();
  private static volatile Cupti instance;
  private static volatile RuntimeException loadFailure;

  final NativeLibrary library;

  private Cupti(NativeLibrary library) {
    this.library = library;
  }

  private static NativeFunction fn(String name, MemoryLayout result, MemoryLayout... args) {
    return new NativeFunction(() -> NativeLibraries.find("cupti"), FunctionDescriptor.of(result, args), name);
  }

  /**
   * The process's CUPTI, loaded on first use with every required function resolved; an
   * {@link UnsupportedFeatureException} says why it is missing (the library, or a function it does not export).
   */
  static Cupti instance() {
    Cupti c = instance;
    if (c != null) {
      return c;
    }
    synchronized (LOCK) {
      if (instance == null && loadFailure == null) {
        try {
          NativeLibrary lib = NativeLibraries.find("cupti");
          REQUIRED.forEach(NativeFunction::handle);
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

  /**
   * The id CUPTI gives {@code stream} of {@code context} in its activity records ({@code cuptiGetStreamIdEx}; the
   * NULL stream is the context's legacy default stream); empty where this CUPTI lacks the function or refuses.
   */
  OptionalInt streamId(MemorySegment context, MemorySegment stream) {
    if (!GET_STREAM_ID_EX.available()) {
      return OptionalInt.empty();
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment id = a.allocate(JAVA_INT);
      int rc = (int) GET_STREAM_ID_EX.handle().invokeExact(context, stream, (byte) 0, id);
      return rc == 0 ? OptionalInt.of(id.get(JAVA_INT, 0)) : OptionalInt.empty();
    } catch (Throwable t) {
      return OptionalInt.empty();
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
      check("cuptiGetVersion", (int) GET_VERSION.handle().invokeExact(v));
      return v.get(JAVA_INT, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** CUPTI's current timestamp in ns (CLOCK_REALTIME on Linux unless a timestamp callback is registered). */
  long timestamp() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(JAVA_LONG);
      check("cuptiGetTimestamp", (int) GET_TIMESTAMP.handle().invokeExact(v));
      return v.get(JAVA_LONG, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  int registerCallbacks(MemorySegment requested, MemorySegment completed) {
    try {
      return (int) REGISTER_CALLBACKS.handle().invokeExact(requested, completed);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  int enable(int kind) {
    try {
      return (int) ENABLE.handle().invokeExact(kind);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  int disable(int kind) {
    try {
      return (int) DISABLE.handle().invokeExact(kind);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Advances {@code cursor} (a {@code CUpti_Activity*} slot) to the next record; returns the CUptiResult. */
  int nextRecord(MemorySegment buffer, long validSize, MemorySegment cursor) {
    try {
      return (int) GET_NEXT_RECORD.handle().invokeExact(buffer, validSize, cursor);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  int flushAll(int flag) {
    try {
      return (int) FLUSH_ALL.handle().invokeExact(flag);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The API function name of {@code cbid} in {@code domain} (1 driver, 2 runtime), or null when CUPTI has none. */
  String callbackName(int domain, int cbid) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment out = a.allocate(ADDRESS);
      int rc = (int) GET_CALLBACK_NAME.handle().invokeExact(domain, cbid, out);
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
      int rc = (int) GET_NUM_DROPPED_RECORDS.handle().invokeExact(MemorySegment.NULL, 0, out);
      return rc == 0 ? out.get(JAVA_LONG, 0) : -1;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
