package io.gitm.nvidia.nvml;

import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeLibrary;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The fake libnvidia-ml of {@code src/test/c/fakenvml.c}, built with gcc into {@code target/fake-nvml-test} and
 * loaded from that path (so it never stands in for a real libnvidia-ml the process may also load), with the fake's
 * call counters. One per test JVM: the counters are process-wide, so tests {@link #reset()} them first.
 */
final class FakeNvml {
  private static FakeNvml instance;

  final NvmlFunctions functions;
  private final MethodHandle calls;
  private final MethodHandle fieldRequests;
  private final MethodHandle reset;
  private final MethodHandle setSlowOffset;
  private final MethodHandle setTimestamp;
  private final MethodHandle setProcesses;
  private final MethodHandle setProcessCodes;

  private FakeNvml(NativeLibrary lib) {
    this.functions = new NvmlFunctions(() -> lib);
    this.calls = lib.downcall("fakeNvmlCalls", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
    this.fieldRequests = lib.downcall("fakeNvmlFieldRequests",
        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    this.reset = lib.downcall("fakeNvmlReset", FunctionDescriptor.ofVoid());
    this.setSlowOffset = lib.downcall("fakeNvmlSetSlowOffset", FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG));
    this.setTimestamp = lib.downcall("fakeNvmlSetTimestamp", FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG));
    this.setProcesses = lib.downcall("fakeNvmlSetProcesses", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT,
        ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    this.setProcessCodes = lib.downcall("fakeNvmlSetProcessCodes", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT,
        ValueLayout.JAVA_INT));
  }

  /** The fake, built on first use; the calling test is skipped (with the reason) where gcc is missing. */
  static synchronized FakeNvml load() throws IOException, InterruptedException {
    if (instance == null) {
      Path source = Path.of("src/test/c/fakenvml.c");
      if (!Files.isRegularFile(source)) {
        throw new IllegalStateException(source + " not found from " + Path.of("").toAbsolutePath());
      }
      Assumptions.assumeTrue(onPath("gcc"), "gcc not on PATH: cannot build the fake libnvidia-ml");
      Path dir = Files.createDirectories(Path.of("target/fake-nvml-test"));
      Path so = dir.resolve("libfakenvml-test.so").toAbsolutePath();
      run(List.of("gcc", "-shared", "-fPIC", "-O1", "-Wall", "-o", so.toString(), source.toString()));
      SymbolLookup lookup = SymbolLookup.libraryLookup(so, Arena.global());
      instance = new FakeNvml(new NativeLibrary("nvidia-ml", so.getFileName().toString(), so.toString(), false,
          lookup));
      int rc = Nvml.call(instance.functions.init);
      if (rc != Nvml.SUCCESS) {
        throw new IllegalStateException("fake nvmlInit_v2 returned " + rc);
      }
    }
    return instance;
  }

  /** The fake's device 0. */
  MemorySegment device() {
    return Nvml.handleByIndex(functions, 0);
  }

  /** Calls to the C function {@code name} since the last reset. */
  long calls(String name) {
    try (Arena a = Arena.ofConfined()) {
      long n = (long) calls.invoke(a.allocateFrom(name));
      if (n == -1) {
        throw new IllegalArgumentException("the fake NVML has no function " + name);
      }
      return n;
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /** How often nvmlDeviceGetFieldValues was asked for field {@code id} since the last reset. */
  long fieldRequests(int id) {
    try {
      return (long) fieldRequests.invoke(id);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /** Stamps field values with {@code micros} from now on (0: the time of day). */
  void setTimestamp(long micros) {
    try {
      setTimestamp.invoke(micros);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /**
   * The device's compute processes from now on: {@code pids[i]} (0: this process) at {@code smPercent[i]} SM
   * utilization.
   */
  void setProcesses(int[] pids, int[] smPercent) {
    if (pids.length != smPercent.length || pids.length > 8) {
      throw new IllegalArgumentException("the fake holds up to 8 processes, each with its SM %: got " + pids.length
          + " pids and " + smPercent.length + " utilizations");
    }
    try (Arena a = Arena.ofConfined()) {
      setProcesses.invoke(pids.length, a.allocateFrom(ValueLayout.JAVA_INT, pids),
          a.allocateFrom(ValueLayout.JAVA_INT, smPercent));
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /** The NVML codes the process list and the utilization call return from now on (0: they work). */
  void setProcessCodes(int list, int utilization) {
    try {
      setProcessCodes.invoke(list, utilization);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /** Zeroes the counters, the slow offset and the fixed timestamp; this process alone on the device again. */
  void reset() {
    try {
      reset.invoke();
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /** Adds {@code offset} to the ECC counters, corrected remapped rows and the power limit (in W). */
  void setSlowOffset(long offset) {
    try {
      setSlowOffset.invoke(offset);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  private static boolean onPath(String exe) {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String d : path.split(":")) {
        if (Files.isExecutable(Path.of(d, exe))) {
          return true;
        }
      }
    }
    return false;
  }

  private static void run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("timed out: " + String.join(" ", cmd));
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue() + ":\n" + out);
    }
  }
}
