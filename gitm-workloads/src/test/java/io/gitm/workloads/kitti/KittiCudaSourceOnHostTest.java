package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.KernelArgs;
import io.gitm.device.KernelDef;
import io.gitm.device.LaunchConfig;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CUDA source itself (not its Java emulation), compiled as host C++ with a small shim (a block's threads as real
 * threads meeting at barriers, atomics as {@code std::atomic_ref}, so the scatter's atomics really race), has the
 * emulations' effect on memory: bit for bit for the pillar stages (whatever order the atomics took), the backbone's
 * kernels and NMS; within a few float ulps for box decoding, where the exponential is the C library's against Java's.
 * Needs a C++20 compiler ({@code g++}); skipped, with the reason, without one.
 */
class KittiCudaSourceOnHostTest {
  /** Relative difference allowed where exp is involved (against max(1, |value|)). */
  static final double LIBM_TOLERANCE = 2e-6;

  @TempDir
  static Path dir;

  static Path binary;
  static String why;

  @BeforeAll
  static void compile() throws Exception {
    for (String f : List.of("/kernels/kitti.cu", "/kitti-host/shim.h", "/kitti-host/run.cpp")) {
      try (InputStream in = KittiCudaSourceOnHostTest.class.getResourceAsStream(f)) {
        if (in == null) {
          why = "resource " + f + " missing from the class path";
          return;
        }
        Files.write(dir.resolve(Path.of(f).getFileName().toString()), in.readAllBytes());
      }
    }
    try {
      Process p = new ProcessBuilder("g++", "-std=c++20", "-O2", "-ffp-contract=off", "-w", "-x", "c++", "run.cpp",
          "-o", "run", "-lpthread").directory(dir.toFile()).redirectErrorStream(true).start();
      String log = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(180, TimeUnit.SECONDS) || p.exitValue() != 0) {
        why = "g++ -std=c++20 could not build the host shim: " + log.lines().limit(3).toList();
        return;
      }
      binary = dir.resolve("run");
    } catch (IOException e) {
      why = "no C++ compiler: " + e.getMessage();
    }
  }

  /** A buffer argument: the index of one of the case's buffers. */
  record Ref(int index) {
  }

  record Call(String entry, LaunchConfig launch, Object... args) {
  }

  /** Buffers, the launches over them, and whether the result must be bit-identical. */
  record Case(List<ByteBuffer> buffers, List<Call> calls, boolean exact) {
  }

  /** Builds a case: random buffers and launches. */
  static final class Builder {
    final SplittableRandom rnd;
    final List<ByteBuffer> buffers = new ArrayList<>();
    final List<Call> calls = new ArrayList<>();

    Builder(long seed) {
      rnd = new SplittableRandom(seed);
    }

    Ref floats(int n, double scale) {
      ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        b.putFloat(4 * i, (float) (scale * rnd.nextGaussian()));
      }
      buffers.add(b);
      return new Ref(buffers.size() - 1);
    }

    Ref ints(int n, int bound) {
      ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        b.putInt(4 * i, rnd.nextInt(bound));
      }
      buffers.add(b);
      return new Ref(buffers.size() - 1);
    }

    Builder call(String entry, LaunchConfig launch, Object... args) {
      calls.add(new Call(entry, launch, args));
      return this;
    }

    Case build(boolean exact) {
      return new Case(buffers, calls, exact);
    }
  }

  static Ref put(Builder b, float[] v) {
    ByteBuffer buf = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
    buf.asFloatBuffer().put(v);
    b.buffers.add(buf);
    return new Ref(b.buffers.size() - 1);
  }

  static Ref zeros(Builder b, int n) {
    b.buffers.add(ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN));
    return new Ref(b.buffers.size() - 1);
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    {
      // a scan's pillars end to end, padded with cropped (NaN) points; 4 points a pillar, so that near pillars
      // overflow and which points they keep must not depend on the racing atomics
      Builder b = new Builder(1);
      float[] scan = new ScanGenerator(5, 16, 128).frame(0).scan().xyzr();
      float[] pts = java.util.Arrays.copyOf(scan, scan.length + 4 * 7);
      java.util.Arrays.fill(pts, scan.length, pts.length, Float.NaN);
      int n = pts.length / 4;
      Grid g = Grid.pointPillars(0.64f);
      int cells = g.cells();
      int maxPillars = 2000;
      int maxPts = 4;
      int c = 8;
      KittiWeights w = KittiWeights.seeded(c, 3);
      int[] perCell = new int[cells];
      for (int t = 0; t < n; t++) {
        int cell = g.cell(pts[4 * t], pts[4 * t + 1], pts[4 * t + 2]);
        if (cell >= 0 && ++perCell[cell] > 3 * maxPts) {
          break; // overflowing pillars present, as the case means
        }
        if (t == n - 1) {
          throw new IllegalStateException("the scan's pillars do not overflow: the case would not test it");
        }
      }
      Ref p = put(b, pts);
      Ref cellOf = zeros(b, n);
      Ref count = zeros(b, cells);
      Ref pillarOf = zeros(b, cells);
      Ref pillarCell = zeros(b, maxPillars);
      Ref pillarStart = zeros(b, maxPillars);
      Ref num = zeros(b, 1);
      Ref fill = zeros(b, maxPillars);
      Ref idx = zeros(b, n);
      Ref feat = zeros(b, maxPillars * c);
      Ref canvas = zeros(b, c * cells);
      b.call(KittiKernels.ASSIGN, LaunchConfig.cover(n, 128), p, cellOf, count, n, g.xMin(), g.yMin(), g.zMin(),
          g.xMax(), g.yMax(), g.zMax(), g.pillar(), g.nx(), g.ny());
      b.call(KittiKernels.COMPACT, KittiKernels.oneBlock(), count, pillarOf, pillarCell, pillarStart, num, cells,
          maxPillars);
      b.call(KittiKernels.GATHER, LaunchConfig.cover(n, 128), cellOf, pillarOf, pillarStart, fill, idx, n);
      b.call(KittiKernels.PILLAR_SORT, LaunchConfig.cover(maxPillars, 256), fill, pillarStart, idx, maxPillars, maxPts,
          n);
      b.call(KittiKernels.POINTNET, LaunchConfig.cover((long) maxPillars * c, 256), p, idx, pillarStart, fill,
          pillarCell,
          put(b, w.pfnW()), put(b, w.pfnScale()), put(b, w.pfnShift()), feat, maxPillars, maxPts, c, g.xMin(),
          g.yMin(), g.pillar(), g.nx());
      b.call(KittiKernels.SCATTER_BEV, LaunchConfig.cover((long) maxPillars * c, 256), feat, pillarCell, canvas,
          maxPillars, c, cells);
      out.add(Arguments.of("pillars, PointNet and scatter of a scan", b.build(true)));
    }
    {
      // a small pillar cap: the scan of cells cuts the list part-way through a thread's run
      Builder b = new Builder(2);
      int cells = 5000;
      Ref count = b.ints(cells, 3);
      b.call(KittiKernels.COMPACT, KittiKernels.oneBlock(), count, zeros(b, cells), zeros(b, 700), zeros(b, 700),
          zeros(b, 1), cells, 700);
      out.add(Arguments.of("compaction with a pillar cap", b.build(true)));
    }
    {
      Builder b = new Builder(3);
      int cin = 3;
      int h = 7;
      int w = 9;
      Ref in = b.floats(cin * h * w, 1);
      Ref col1 = zeros(b, cin * 9 * h * w);
      Ref col2 = zeros(b, cin * 9 * 4 * 5);
      b.call(KittiKernels.IM2COL, LaunchConfig.cover(cin * 9L * h * w, 256), in, col1, cin, h, w, h, w, 1);
      b.call(KittiKernels.IM2COL, LaunchConfig.cover(cin * 9L * 20, 256), in, col2, cin, h, w, 4, 5, 2);
      Ref y = b.floats(cin * h * w, 1);
      b.call(KittiKernels.BIAS_ACT, LaunchConfig.cover(cin * h * w, 256), y, b.floats(cin, 1), cin, h * w, 1);
      Ref cat = zeros(b, 5 * 7 * 9);
      b.call(KittiKernels.UPSAMPLE, LaunchConfig.cover(2L * 7 * 9, 256), b.floats(2 * 4 * 5, 1), cat, 2, 4, 5, 7, 9,
          3);
      out.add(Arguments.of("im2col (stride 1 and 2), bias + ReLU, upsampling", b.build(true)));
    }
    {
      Builder b = new Builder(4);
      int n1 = 37;
      Ref head = b.floats(KittiKernels.ANCHORS * KittiKernels.ANCHOR_CHANNELS * n1, 1);
      b.call(KittiKernels.DECODE, LaunchConfig.cover((long) n1 * KittiKernels.ANCHORS, 64), head,
          zeros(b, n1 * KittiKernels.ANCHORS * KittiKernels.BOX_FLOATS), n1, 5, 0f, -39.68f, 1.28f);
      out.add(Arguments.of("box decoding", b.build(false)));
    }
    {
      // crowded boxes of three classes, more candidates than the list holds
      Builder b = new Builder(5);
      int anchors = 900;
      float[] boxes = new float[anchors * KittiKernels.BOX_FLOATS];
      for (int i = 0; i < anchors; i++) {
        int o = i * KittiKernels.BOX_FLOATS;
        boxes[o] = (float) (20 * b.rnd.nextDouble());
        boxes[o + 1] = (float) (20 * b.rnd.nextDouble());
        boxes[o + 2] = -1f;
        boxes[o + 3] = (float) (1 + 3 * b.rnd.nextDouble());
        boxes[o + 4] = (float) (0.5 + 1.5 * b.rnd.nextDouble());
        boxes[o + 5] = 1.5f;
        boxes[o + 6] = (float) (2 * Math.PI * b.rnd.nextDouble() - Math.PI);
        boxes[o + 7] = b.rnd.nextInt(10) == 0 ? 0.5f : (float) b.rnd.nextDouble(); // ties too
        boxes[o + 8] = b.rnd.nextInt(3);
      }
      b.call(KittiKernels.NMS, KittiKernels.oneBlock(), put(b, boxes), anchors, 0.2f, 0.3f, 512, 60,
          zeros(b, 1 + KittiKernels.DET_WORDS * 60));
      out.add(Arguments.of("rotated-box NMS", b.build(true)));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theCudaSourceHasTheEmulationsEffect(String name, Case c) throws Exception {
    Assumptions.assumeTrue(binary != null, () -> why);
    List<ByteBuffer> want = emulated(c);
    List<ByteBuffer> got = onHost(c);
    for (int i = 0; i < want.size(); i++) {
      ByteBuffer w = want.get(i);
      ByteBuffer g = got.get(i);
      if (c.exact()) {
        assertThat(g.array()).as("%s: buffer %d", name, i).isEqualTo(w.array());
      } else {
        for (int k = 0; k < w.capacity() / 4; k++) {
          float a = w.getFloat(4 * k);
          float v = g.getFloat(4 * k);
          assertThat((double) Math.abs(a - v) / Math.max(1, Math.abs(a))).as("%s: buffer %d value %d", name, i, k)
              .isLessThanOrEqualTo(LIBM_TOLERANCE);
        }
      }
    }
  }

  static List<ByteBuffer> copies(List<ByteBuffer> buffers) {
    List<ByteBuffer> out = new ArrayList<>();
    for (ByteBuffer b : buffers) {
      ByteBuffer c = ByteBuffer.allocate(b.capacity()).order(ByteOrder.LITTLE_ENDIAN);
      c.put(b.duplicate().clear());
      out.add(c.clear());
    }
    return out;
  }

  static List<ByteBuffer> emulated(Case c) {
    List<ByteBuffer> bufs = copies(c.buffers());
    for (Call call : c.calls()) {
      KernelDef def = KittiKernels.MODULE.kernel(call.entry()).orElseThrow();
      def.emulation().accept(call.launch(), new Args(call.args(), bufs));
    }
    return bufs;
  }

  /** Launch arguments as an emulation sees them, buffers resolved to the case's copies. */
  record Args(Object[] args, List<ByteBuffer> bufs) implements KernelArgs {
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

  static List<ByteBuffer> onHost(Case c) throws Exception {
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
        byte[] name = call.entry().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        d.writeInt(Integer.reverseBytes(name.length));
        d.write(name);
        LaunchConfig l = call.launch();
        for (int v : new int[] {l.grid().x(), l.grid().y(), l.grid().z(), l.block().x(), l.block().y(), l.block().z(),
            l.dynamicSharedBytes(), call.args().length}) {
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
    Process p = new ProcessBuilder(binary.toString(), in.toString(), out.toString()).redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("host run finished").isTrue();
    assertThat(p.exitValue()).as("host run: " + log).isZero();
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
