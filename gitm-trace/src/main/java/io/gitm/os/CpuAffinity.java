package io.gitm.os;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.Locale;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The CPUs a host thread may run on, through Linux's {@code sched_getaffinity} / {@code sched_setaffinity} (libc,
 * bound once with {@code java.lang.foreign}). A thread is named by its kernel thread id ({@code gettid}); 0 is the
 * calling thread. Elsewhere than on Linux, or where libc lacks the functions, every call but {@link #supported()}
 * and {@link #unsupportedReason()} throws {@link UnsupportedOperationException} saying so.
 */
public final class CpuAffinity {
  /** CPUs a mask covers: 8192 bits, far above CPU_SETSIZE (1024), so that the kernel never finds it too small. */
  static final int MAX_CPUS = 8192;
  private static final long MASK_BYTES = MAX_CPUS / 8;

  private static final Binding BINDING = Binding.load();

  private CpuAffinity() {
  }

  /** Whether threads can be pinned here. */
  public static boolean supported() {
    return BINDING.reason == null;
  }

  /** Why threads cannot be pinned here, or an empty string where they can. */
  public static String unsupportedReason() {
    return BINDING.reason == null ? "" : BINDING.reason;
  }

  /** The kernel thread id of the calling thread. */
  public static int currentThreadId() {
    Binding b = BINDING.require();
    try {
      return (int) b.gettid.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The CPUs thread {@code tid} (0: the calling thread) may run on. */
  public static SortedSet<Integer> of(int tid) {
    Binding b = BINDING.require();
    if (tid < 0) {
      throw new IllegalArgumentException("negative thread id " + tid);
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment mask = a.allocate(MASK_BYTES, 8);
      MemorySegment state = a.allocate(b.captureLayout);
      int rc = (int) b.getaffinity.invokeExact(state, tid, MASK_BYTES, mask);
      if (rc != 0) {
        throw failure("sched_getaffinity", b, state, tid);
      }
      TreeSet<Integer> out = new TreeSet<>();
      for (int w = 0; w < MAX_CPUS / 64; w++) {
        long bits = mask.getAtIndex(ValueLayout.JAVA_LONG, w);
        while (bits != 0) {
          int bit = Long.numberOfTrailingZeros(bits);
          out.add(w * 64 + bit);
          bits &= bits - 1;
        }
      }
      return Collections.unmodifiableSortedSet(out);
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Restricts thread {@code tid} (0: the calling thread) to {@code cpus}. A CPU outside 0..8191 is an
   * {@link IllegalArgumentException}; a set the kernel refuses (no online CPU the process may use, or no permission
   * over the thread) an {@link IllegalStateException} naming the error.
   */
  public static void pin(int tid, Set<Integer> cpus) {
    Binding b = BINDING.require();
    if (tid < 0) {
      throw new IllegalArgumentException("negative thread id " + tid);
    }
    if (cpus == null || cpus.isEmpty()) {
      throw new IllegalArgumentException("pinning a thread needs at least one CPU");
    }
    for (int c : cpus) {
      if (c < 0 || c >= MAX_CPUS) {
        throw new IllegalArgumentException("CPU " + c + " is outside 0.." + (MAX_CPUS - 1));
      }
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment mask = a.allocate(MASK_BYTES, 8);
      for (int c : cpus) {
        long word = mask.getAtIndex(ValueLayout.JAVA_LONG, c / 64);
        mask.setAtIndex(ValueLayout.JAVA_LONG, c / 64, word | (1L << (c % 64)));
      }
      MemorySegment state = a.allocate(b.captureLayout);
      int rc = (int) b.setaffinity.invokeExact(state, tid, MASK_BYTES, mask);
      if (rc != 0) {
        throw failure("sched_setaffinity to CPUs " + cpus, b, state, tid);
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static IllegalStateException failure(String what, Binding b, MemorySegment state, int tid) {
    int errno = (int) b.errno.get(state, 0L);
    String name = switch (errno) {
      case 1 -> "EPERM (no permission over the thread)";
      case 3 -> "ESRCH (no such thread)";
      case 14 -> "EFAULT";
      case 22 -> "EINVAL (no CPU of the set is online and allowed to this process)";
      default -> "errno " + errno;
    };
    return new IllegalStateException(what + " of thread " + (tid == 0 ? "(calling)" : Integer.toString(tid))
        + " failed: " + name);
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

  /** The resolved libc functions, or why there are none. */
  private record Binding(MethodHandle getaffinity, MethodHandle setaffinity, MethodHandle gettid,
      StructLayout captureLayout, VarHandle errno, String reason) {

    Binding require() {
      if (reason != null) {
        throw new UnsupportedOperationException("CPU affinity is unsupported here: " + reason);
      }
      return this;
    }

    static Binding load() {
      String os = System.getProperty("os.name", "?");
      if (!os.toLowerCase(Locale.ROOT).contains("linux")) {
        return unsupported("pinning threads needs Linux's sched_setaffinity; this is " + os);
      }
      try {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        StructLayout capture = Linker.Option.captureStateLayout();
        VarHandle errnoHandle = capture.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
        FunctionDescriptor affinity = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
        MemorySegment get = libc.find("sched_getaffinity").orElse(null);
        MemorySegment set = libc.find("sched_setaffinity").orElse(null);
        if (get == null || set == null) {
          return unsupported("libc exports no sched_getaffinity/sched_setaffinity");
        }
        MemorySegment gettid = libc.find("gettid").orElse(null);
        if (gettid == null) {
          return unsupported("libc has no gettid (glibc 2.30 or later has it)");
        }
        MethodHandle tid = linker.downcallHandle(gettid, FunctionDescriptor.of(ValueLayout.JAVA_INT));
        return new Binding(linker.downcallHandle(get, affinity, errno), linker.downcallHandle(set, affinity, errno),
            tid, capture, errnoHandle, null);
      } catch (RuntimeException | LinkageError e) {
        return unsupported("binding libc failed: " + e);
      }
    }

    private static Binding unsupported(String why) {
      return new Binding(null, null, null, null, null, why);
    }
  }
}
