package io.gitm.workloads;

import io.gitm.device.KernelArgs;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Support for the tests that run a workload's CUDA source compiled as host C++ (a shim and a runner per workload, in
 * the test resources) against the workload's Java emulations of the same kernels: a case is buffers and launches over
 * them; the runner reads them from a file, runs the launches and writes the buffers back (the format is in each
 * workload's {@code run.cpp}).
 */
public final class HostKernels {
  private HostKernels() {}

  /** A buffer argument: the index of one of the case's buffers. */
  public record Ref(int index) {}

  public record Call(String entry, LaunchConfig launch, Object... args) {}

  /** Buffers, the launches over them, and whether the result must be bit-identical. */
  public record Case(List<ByteBuffer> buffers, List<Call> calls, boolean exact) {}

  /** Builds a case: seeded random or given buffers, and launches. */
  public static final class Builder {
    public final SplittableRandom rnd;
    private final List<ByteBuffer> buffers = new ArrayList<>();
    private final List<Call> calls = new ArrayList<>();

    public Builder(long seed) {
      rnd = new SplittableRandom(seed);
    }

    public Ref floats(int n, double scale) {
      ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        b.putFloat(4 * i, (float) (scale * rnd.nextGaussian()));
      }
      return add(b);
    }

    public Ref ints(int n, int bound) {
      ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        b.putInt(4 * i, rnd.nextInt(bound));
      }
      return add(b);
    }

    /** A buffer holding {@code v}. */
    public Ref put(float[] v) {
      ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
      b.asFloatBuffer().put(v);
      return add(b);
    }

    /** A buffer of {@code n} zero words. */
    public Ref zeros(int n) {
      return add(ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN));
    }

    private Ref add(ByteBuffer b) {
      buffers.add(b);
      return new Ref(buffers.size() - 1);
    }

    public Builder call(String entry, LaunchConfig launch, Object... args) {
      calls.add(new Call(entry, launch, args));
      return this;
    }

    public Case build(boolean exact) {
      return new Case(buffers, calls, exact);
    }
  }

  /** A buffer's words as floats. */
  public static float[] floats(ByteBuffer b) {
    float[] out = new float[b.capacity() / 4];
    b.duplicate().order(ByteOrder.LITTLE_ENDIAN).clear().asFloatBuffer().get(out);
    return out;
  }

  /** The case's buffers after its launches run through {@code module}'s Java emulations (on copies). */
  public static List<ByteBuffer> emulated(Case c, KernelModule module) {
    List<ByteBuffer> bufs = new ArrayList<>();
    for (ByteBuffer b : c.buffers()) {
      ByteBuffer copy = ByteBuffer.allocate(b.capacity()).order(ByteOrder.LITTLE_ENDIAN);
      copy.put(b.duplicate().clear());
      bufs.add(copy.clear());
    }
    for (Call call : c.calls()) {
      KernelDef def = module.kernel(call.entry()).orElseThrow();
      def.emulation().accept(call.launch(), new Args(call.args(), bufs));
    }
    return bufs;
  }

  /** Launch arguments as an emulation sees them, buffers resolved to the case's copies. */
  private record Args(Object[] args, List<ByteBuffer> bufs) implements KernelArgs {
    @Override
    public int count() {
      return args.length;
    }

    @Override
    public ByteBuffer memory(int index) {
      return bufs.get(((Ref) args[index]).index()).duplicate().order(ByteOrder.LITTLE_ENDIAN).clear();
    }

    @Override
    public int i32(int index) {
      return ((Number) args[index]).intValue();
    }

    @Override
    public long i64(int index) {
      return ((Number) args[index]).longValue();
    }

    @Override
    public float f32(int index) {
      return ((Number) args[index]).floatValue();
    }

    @Override
    public double f64(int index) {
      return ((Number) args[index]).doubleValue();
    }
  }

  /**
   * A workload's host runner, compiled with g++ (C++20) from its resources, or why it could not be.
   *
   * @param binary the runner, or null
   * @param why why there is no runner, or null
   */
  public record Runner(Path dir, Path binary, String why) {
    /**
     * Copies {@code resources} (the CUDA source, the shim, the runner's {@code run.cpp}) into {@code dir} and compiles
     * {@code run.cpp}.
     */
    public static Runner compile(Path dir, List<String> resources) throws InterruptedException {
      for (String f : resources) {
        try (InputStream in = HostKernels.class.getResourceAsStream(f)) {
          if (in == null) {
            return new Runner(dir, null, "resource " + f + " missing from the class path");
          }
          Files.write(dir.resolve(Path.of(f).getFileName().toString()), in.readAllBytes());
        } catch (IOException e) {
          return new Runner(dir, null, "resource " + f + " cannot be copied: " + e.getMessage());
        }
      }
      try {
        Process p = new ProcessBuilder("g++", "-std=c++20", "-O2", "-ffp-contract=off", "-w", "-x", "c++", "run.cpp",
            "-o", "run", "-lpthread").directory(dir.toFile()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(180, TimeUnit.SECONDS) || p.exitValue() != 0) {
          return new Runner(dir, null,
              "g++ -std=c++20 could not build the host shim: " + log.lines().limit(3).toList());
        }
        return new Runner(dir, dir.resolve("run"), null);
      } catch (IOException e) {
        return new Runner(dir, null, "no C++ compiler: " + e.getMessage());
      }
    }

    /** The case's buffers after the runner ran its launches on the host. */
    public List<ByteBuffer> run(Case c) throws IOException, InterruptedException {
      Path in = Files.createTempFile(dir, "in", ".bin");
      Path out = Files.createTempFile(dir, "out", ".bin");
      try (DataOutputStream d = new DataOutputStream(Files.newOutputStream(in))) {
        d.writeInt(Integer.reverseBytes(c.buffers().size()));
        for (ByteBuffer b : c.buffers()) {
          d.writeLong(Long.reverseBytes(b.capacity()));
          byte[] bytes = new byte[b.capacity()];
          b.duplicate().clear().get(bytes);
          d.write(bytes);
        }
        d.writeInt(Integer.reverseBytes(c.calls().size()));
        for (Call call : c.calls()) {
          byte[] name = call.entry().getBytes(StandardCharsets.US_ASCII);
          d.writeInt(Integer.reverseBytes(name.length));
          d.write(name);
          LaunchConfig l = call.launch();
          for (int v : new int[] {l.grid().x(), l.grid().y(), l.grid().z(), l.block().x(), l.block().y(),
              l.block().z(), l.dynamicSharedBytes(), call.args().length}) {
            d.writeInt(Integer.reverseBytes(v));
          }
          for (Object a : call.args()) {
            int type = a instanceof Ref ? 0 : a instanceof Float ? 2 : 1;
            int value = switch (a) {
              case Ref r -> r.index();
              case Float f -> Float.floatToRawIntBits(f);
              case Integer i -> i;
              default -> throw new IllegalArgumentException("argument " + a);
            };
            d.writeInt(Integer.reverseBytes(type));
            d.writeInt(Integer.reverseBytes(value));
          }
        }
      }
      Process p = new ProcessBuilder(binary.toString(), in.toString(), out.toString()).redirectErrorStream(true)
          .start();
      String log = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("the host run did not finish within 120 s");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("the host run exited with " + p.exitValue() + ": " + log);
      }
      ByteBuffer r = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
      int n = r.getInt();
      List<ByteBuffer> bufs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int bytes = (int) r.getLong();
        ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.put(r.slice(r.position(), bytes));
        r.position(r.position() + bytes);
        bufs.add(b.clear());
      }
      return bufs;
    }
  }
}
