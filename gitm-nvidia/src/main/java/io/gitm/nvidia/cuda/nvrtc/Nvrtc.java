package io.gitm.nvidia.cuda.nvrtc;

import static io.gitm.nvidia.ffm.Native.C_INT;
import static io.gitm.nvidia.ffm.Native.C_POINTER;
import static io.gitm.nvidia.ffm.Native.C_SIZE_T;

import io.gitm.nvidia.ffm.ErrorCodes;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeFunction;
import io.gitm.nvidia.ffm.NativeLibraries;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Compiles CUDA C source to PTX at run time with NVRTC, for machines where the build had no {@code nvcc}. */
public final class Nvrtc {
  private static final NativeFunction CREATE = fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER,
      C_INT, C_POINTER, C_POINTER), "nvrtcCreateProgram");
  private static final NativeFunction COMPILE =
      fn(FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER), "nvrtcCompileProgram");
  private static final NativeFunction PTX_SIZE =
      fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), "nvrtcGetPTXSize");
  private static final NativeFunction PTX = fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), "nvrtcGetPTX");
  private static final NativeFunction LOG_SIZE =
      fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), "nvrtcGetProgramLogSize");
  private static final NativeFunction LOG =
      fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), "nvrtcGetProgramLog");
  private static final NativeFunction DESTROY = fn(FunctionDescriptor.of(C_INT, C_POINTER), "nvrtcDestroyProgram");
  private static final NativeFunction VERSION = fn(FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER), "nvrtcVersion");

  private Nvrtc() {
  }

  private static NativeFunction fn(FunctionDescriptor d, String name) {
    return new NativeFunction(() -> NativeLibraries.find("nvrtc"), d, name);
  }

  private static int call(NativeFunction f, Object... args) {
    try {
      return (int) f.handle().invokeWithArguments(args);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /** NVRTC's version as {@code major.minor}. */
  public static String version() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment major = a.allocate(ValueLayout.JAVA_INT);
      MemorySegment minor = a.allocate(ValueLayout.JAVA_INT);
      ErrorCodes.checkNvrtc("nvrtcVersion", call(VERSION, major, minor), null);
      return major.get(ValueLayout.JAVA_INT, 0) + "." + minor.get(ValueLayout.JAVA_INT, 0);
    }
  }

  /**
   * Compiles {@code source} (named {@code name} in messages) for the virtual architecture {@code arch}, e.g.
   * {@code compute_90}; a compilation error carries NVRTC's log.
   */
  public static String compile(String source, String name, String arch) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment prog = a.allocate(ValueLayout.ADDRESS);
      ErrorCodes.checkNvrtc("nvrtcCreateProgram", call(CREATE, prog, a.allocateFrom(source), a.allocateFrom(name), 0,
          MemorySegment.NULL, MemorySegment.NULL), name);
      MemorySegment p = prog.get(ValueLayout.ADDRESS, 0);
      try {
        String[] opts = {"--gpu-architecture=" + arch, "-default-device", "-std=c++17"};
        MemorySegment optv = a.allocate(ValueLayout.ADDRESS, opts.length);
        for (int i = 0; i < opts.length; i++) {
          optv.setAtIndex(ValueLayout.ADDRESS, i, a.allocateFrom(opts[i]));
        }
        int rc = call(COMPILE, p, opts.length, optv);
        if (rc != 0) {
          ErrorCodes.checkNvrtc("nvrtcCompileProgram", rc, name + ": " + log(a, p));
        }
        MemorySegment size = a.allocate(C_SIZE_T);
        ErrorCodes.checkNvrtc("nvrtcGetPTXSize", call(PTX_SIZE, p, size), name);
        MemorySegment ptx = a.allocate(size.get(ValueLayout.JAVA_LONG, 0));
        ErrorCodes.checkNvrtc("nvrtcGetPTX", call(PTX, p, ptx), name);
        return Native.cString(ptx);
      } finally {
        call(DESTROY, prog);
      }
    }
  }

  private static String log(Arena a, MemorySegment p) {
    MemorySegment size = a.allocate(C_SIZE_T);
    if (call(LOG_SIZE, p, size) != 0) {
      return "(no log)";
    }
    MemorySegment log = a.allocate(Math.max(1, size.get(ValueLayout.JAVA_LONG, 0)));
    return call(LOG, p, log) == 0 ? Native.cString(log).strip() : "(no log)";
  }
}
