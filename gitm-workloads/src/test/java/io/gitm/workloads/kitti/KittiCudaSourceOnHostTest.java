package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.workloads.HostKernels;
import io.gitm.workloads.HostKernels.Builder;
import io.gitm.workloads.HostKernels.Case;
import io.gitm.workloads.HostKernels.Ref;
import io.gitm.device.LaunchConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

  static HostKernels.Runner runner;

  @BeforeAll
  static void compile() throws Exception {
    runner = HostKernels.Runner.compile(dir, List.of("/kernels/kitti.cu", "/kitti-host/shim.h", "/kitti-host/run.cpp"));
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
      Ref p = b.put(pts);
      Ref cellOf = b.zeros(n);
      Ref count = b.zeros(cells);
      Ref pillarOf = b.zeros(cells);
      Ref pillarCell = b.zeros(maxPillars);
      Ref pillarStart = b.zeros(maxPillars);
      Ref num = b.zeros(1);
      Ref fill = b.zeros(maxPillars);
      Ref idx = b.zeros(n);
      Ref feat = b.zeros(maxPillars * c);
      Ref canvas = b.zeros(c * cells);
      b.call(KittiKernels.ASSIGN, LaunchConfig.cover(n, 128), p, cellOf, count, n, g.xMin(), g.yMin(), g.zMin(),
          g.xMax(), g.yMax(), g.zMax(), g.pillar(), g.nx(), g.ny());
      b.call(KittiKernels.COMPACT, KittiKernels.oneBlock(), count, pillarOf, pillarCell, pillarStart, num, cells,
          maxPillars);
      b.call(KittiKernels.GATHER, LaunchConfig.cover(n, 128), cellOf, pillarOf, pillarStart, fill, idx, n);
      b.call(KittiKernels.PILLAR_SORT, LaunchConfig.cover(maxPillars, 256), fill, pillarStart, idx, maxPillars, maxPts,
          n);
      b.call(KittiKernels.POINTNET, LaunchConfig.cover((long) maxPillars * c, 256), p, idx, pillarStart, fill,
          pillarCell,
          b.put(w.pfnW()), b.put(w.pfnScale()), b.put(w.pfnShift()), feat, maxPillars, maxPts, c, g.xMin(),
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
      b.call(KittiKernels.COMPACT, KittiKernels.oneBlock(), count, b.zeros(cells), b.zeros(700), b.zeros(700),
          b.zeros(1), cells, 700);
      out.add(Arguments.of("compaction with a pillar cap", b.build(true)));
    }
    {
      Builder b = new Builder(3);
      int cin = 3;
      int h = 7;
      int w = 9;
      Ref in = b.floats(cin * h * w, 1);
      Ref col1 = b.zeros(cin * 9 * h * w);
      Ref col2 = b.zeros(cin * 9 * 4 * 5);
      b.call(KittiKernels.IM2COL, LaunchConfig.cover(cin * 9L * h * w, 256), in, col1, cin, h, w, h, w, 1);
      b.call(KittiKernels.IM2COL, LaunchConfig.cover(cin * 9L * 20, 256), in, col2, cin, h, w, 4, 5, 2);
      Ref y = b.floats(cin * h * w, 1);
      b.call(KittiKernels.BIAS_ACT, LaunchConfig.cover(cin * h * w, 256), y, b.floats(cin, 1), cin, h * w, 1);
      Ref cat = b.zeros(5 * 7 * 9);
      b.call(KittiKernels.UPSAMPLE, LaunchConfig.cover(2L * 7 * 9, 256), b.floats(2 * 4 * 5, 1), cat, 2, 4, 5, 7, 9,
          3);
      out.add(Arguments.of("im2col (stride 1 and 2), bias + ReLU, upsampling", b.build(true)));
    }
    {
      Builder b = new Builder(4);
      int n1 = 37;
      Ref head = b.floats(KittiKernels.ANCHORS * KittiKernels.ANCHOR_CHANNELS * n1, 1);
      b.call(KittiKernels.DECODE, LaunchConfig.cover((long) n1 * KittiKernels.ANCHORS, 64), head,
          b.zeros(n1 * KittiKernels.ANCHORS * KittiKernels.BOX_FLOATS), n1, 5, 0f, -39.68f, 1.28f);
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
      b.call(KittiKernels.NMS, KittiKernels.oneBlock(), b.put(boxes), anchors, 0.2f, 0.3f, 512, 60,
          b.zeros(1 + KittiKernels.DET_WORDS * 60));
      out.add(Arguments.of("rotated-box NMS", b.build(true)));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theCudaSourceHasTheEmulationsEffect(String name, Case c) throws Exception {
    Assumptions.assumeTrue(runner.binary() != null, runner::why);
    List<ByteBuffer> want = HostKernels.emulated(c, KittiKernels.MODULE);
    List<ByteBuffer> got = runner.run(c);
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
}
