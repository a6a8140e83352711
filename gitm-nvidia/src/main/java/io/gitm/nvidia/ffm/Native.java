package io.gitm.nvidia.ffm;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;

/** Helpers shared by the bindings: C layouts and conversions. */
public final class Native {
  public static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
  public static final ValueLayout.OfLong C_LONG_LONG = ValueLayout.JAVA_LONG;
  public static final ValueLayout.OfLong C_SIZE_T = ValueLayout.JAVA_LONG;
  public static final ValueLayout.OfFloat C_FLOAT = ValueLayout.JAVA_FLOAT;
  public static final ValueLayout.OfDouble C_DOUBLE = ValueLayout.JAVA_DOUBLE;
  public static final AddressLayout C_POINTER = ValueLayout.ADDRESS;

  private Native() {
  }

  /** Rethrows what a downcall handle threw: unchecked as is, anything else wrapped. */
  public static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException("native call failed: " + t, t);
  }

  /** A C function pointer that calls {@code target}, alive for the life of the process. */
  public static MemorySegment upcall(MethodHandle target, FunctionDescriptor descriptor) {
    return Linker.nativeLinker().upcallStub(target, descriptor, Arena.global());
  }

  /** The NUL-terminated string at the start of {@code segment} (at most its size). */
  public static String cString(MemorySegment segment) {
    long n = 0;
    long max = segment.byteSize();
    while (n < max && segment.get(ValueLayout.JAVA_BYTE, n) != 0) {
      n++;
    }
    byte[] b = new byte[(int) n];
    MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, 0, b, 0, (int) n);
    return new String(b, StandardCharsets.UTF_8);
  }
}
