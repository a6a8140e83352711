package io.gitm.workloads.kitti;

import static io.gitm.workloads.kit.WorkModels.f;
import static io.gitm.workloads.kit.WorkModels.floats;
import static io.gitm.workloads.kit.WorkModels.fp32;
import static io.gitm.workloads.kit.WorkModels.i;
import static io.gitm.workloads.kit.WorkModels.ints;

import io.gitm.device.KernelArgs;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.trace.Dim3;
import io.gitm.trace.Work;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * The kernels of {@code /kernels/kitti.cu}: for each, its work model (floating-point operations and the bytes each
 * tensor it reads or writes moves once through device memory; atomics counted as a read and a write of their word)
 * and a host emulation with the CUDA code's effect on memory. The emulations run threads in index order, so where the
 * GPU's atomics make an order (a point's slot in its pillar) the emulation takes the order of the points; every
 * pillar keeps all its points' indices (a compressed layout: each pillar's run starts at its offset) and
 * {@code kitti_pillar_sort} keeps the {@code maxPts} lowest indices in order, so the pillars (and everything after
 * them) do not depend on the atomics' order (see {@code docs/kitti.md}).
 */
final class KittiKernels {
  private KittiKernels() {
  }

  static final String ASSIGN = "kitti_assign";
  static final String COMPACT = "kitti_compact";
  static final String GATHER = "kitti_gather";
  static final String PILLAR_SORT = "kitti_pillar_sort";
  static final String POINTNET = "kitti_pointnet";
  static final String SCATTER_BEV = "kitti_scatter_bev";
  static final String IM2COL = "kitti_im2col";
  static final String BIAS_ACT = "kitti_bias_act";
  static final String UPSAMPLE = "kitti_upsample";
  static final String DECODE = "kitti_decode";
  static final String NMS = "kitti_nms";

  /** Threads per block of the kernels whose block size the configuration does not govern. */
  static final int BLOCK = 256;
  /** Threads of the single block of {@code kitti_compact} and {@code kitti_nms}. */
  static final int ONE_BLOCK = 1024;
  /** Largest candidate list {@code kitti_nms} sorts in shared memory (a power of two). */
  static final int MAX_CANDIDATES = 4096;
  /** Per-point features of the PointNet: x, y, z, r, offsets from the pillar's mean (3) and centre (2). */
  static final int POINT_FEATURES = 9;
  /** Anchors per location: 3 classes × 2 headings; channels per anchor: a score logit and 7 box residuals. */
  static final int ANCHORS = 6;
  static final int ANCHOR_CHANNELS = 8;
  /** Floats of a decoded box: x, y, z, l, w, h, yaw, score, class. */
  static final int BOX_FLOATS = 9;
  /** Words of a kept detection in the output: anchor index, then the box's floats. */
  static final int DET_WORDS = 1 + BOX_FLOATS;
  /** Anchor sizes l, w, h and centre height per class (car, pedestrian, cyclist), PointPillars' KITTI anchors. */
  static final float[][] ANCHOR_SIZES = {{3.9f, 1.6f, 1.56f, -1.0f}, {0.8f, 0.6f, 1.73f, -0.6f},
      {1.76f, 0.6f, 1.73f, -0.6f}};

  static final KernelModule MODULE = new KernelModule("kitti", "/kernels/kitti.cu", List.of(
      new KernelDef(ASSIGN, KittiKernels::assignWork, KittiKernels::assign),
      new KernelDef(COMPACT, KittiKernels::compactWork, KittiKernels::compact),
      new KernelDef(GATHER, KittiKernels::gatherWork, KittiKernels::gather),
      new KernelDef(PILLAR_SORT, KittiKernels::pillarSortWork, KittiKernels::pillarSort),
      new KernelDef(POINTNET, KittiKernels::pointnetWork, KittiKernels::pointnet),
      new KernelDef(SCATTER_BEV, KittiKernels::scatterBevWork, KittiKernels::scatterBev),
      new KernelDef(IM2COL, KittiKernels::im2colWork, KittiKernels::im2col),
      new KernelDef(BIAS_ACT, KittiKernels::biasActWork, KittiKernels::biasAct),
      new KernelDef(UPSAMPLE, KittiKernels::upsampleWork, KittiKernels::upsample),
      new KernelDef(DECODE, KittiKernels::decodeWork, KittiKernels::decode),
      new KernelDef(NMS, KittiKernels::nmsWork, KittiKernels::nms)));

  static LaunchConfig elementwise(long n, int block) {
    return LaunchConfig.cover(n, block);
  }

  static LaunchConfig oneBlock() {
    return new LaunchConfig(Dim3.of(1), Dim3.of(ONE_BLOCK), 0);
  }

  // ---------------------------------------------------------------------------------------------- work models

  /** kitti_assign(pts, cellOf, count, n, xMin, yMin, zMin, xMax, yMax, zMax, pillar, nx, ny). */
  static Work assignWork(LaunchConfig c, Object[] a) {
    long n = i(a, 3);
    return fp32(8.0 * n, 16 * n + 4 * n, 4 * n + 4 * n);
  }

  /** kitti_compact(count, pillarOf, pillarCell, pillarStart, numPillars, cells, maxPillars). */
  static Work compactWork(LaunchConfig c, Object[] a) {
    long cells = i(a, 5);
    long p = i(a, 6);
    return fp32(0, 8 * cells, 4 * cells + 8 * p + 4);
  }

  /**
   * kitti_gather(cellOf, pillarOf, pillarStart, fill, idx, n): a point's cell, pillar and offset, its slot's atomic.
   */
  static Work gatherWork(LaunchConfig c, Object[] a) {
    long n = i(a, 5);
    return fp32(0, 4 * n + 4 * n + 4 * n + 4 * n, 4 * n + 4 * n);
  }

  /** kitti_pillar_sort(fill, pillarStart, idx, maxPillars, maxPts, n): every point index read and written once. */
  static Work pillarSortWork(LaunchConfig c, Object[] a) {
    long p = i(a, 3);
    long n = i(a, 5);
    return fp32(0, 8 * p + 4 * n, 4 * n);
  }

  /**
   * kitti_pointnet(pts, idx, pillarStart, fill, pillarCell, w, scale, shift, feat, maxPillars, maxPts, C, xMin, yMin,
   * pillar, nx).
   */
  static Work pointnetWork(LaunchConfig c, Object[] a) {
    long p = i(a, 9);
    long m = i(a, 10);
    long ch = i(a, 11);
    // per pillar and channel: the mean (3 sums), per point 9 features and their dot product, the norm and the max
    double flops = (double) p * ch * m * (3 + 9 + 2 * POINT_FEATURES + 3);
    return fp32(flops, p * m * (4 + 16) + 12 * p + 4 * ch * (POINT_FEATURES + 2), 4 * p * ch);
  }

  /** kitti_scatter_bev(feat, pillarCell, canvas, maxPillars, C, cells). */
  static Work scatterBevWork(LaunchConfig c, Object[] a) {
    long p = i(a, 3);
    long ch = i(a, 4);
    return fp32(0, 4 * p * ch + 4 * p, 4 * p * ch);
  }

  /** kitti_im2col(in, col, cin, h, w, ho, wo, stride). */
  static Work im2colWork(LaunchConfig c, Object[] a) {
    long cin = i(a, 2);
    return fp32(0, 4 * cin * i(a, 3) * i(a, 4), 4 * cin * 9 * i(a, 5) * i(a, 6));
  }

  /** kitti_bias_act(y, bias, cout, n, relu). */
  static Work biasActWork(LaunchConfig c, Object[] a) {
    long e = (long) i(a, 2) * i(a, 3);
    return fp32(2.0 * e, 4 * e + 4L * i(a, 2), 4 * e);
  }

  /** kitti_upsample(in, out, c, h, w, ho, wo, cOffset). */
  static Work upsampleWork(LaunchConfig c, Object[] a) {
    long ch = i(a, 2);
    return fp32(0, 4 * ch * i(a, 3) * i(a, 4), 4 * ch * i(a, 5) * i(a, 6));
  }

  /** kitti_decode(head, boxes, n1, wo, xMin, yMin, stride). */
  static Work decodeWork(LaunchConfig c, Object[] a) {
    long anchors = (long) i(a, 2) * ANCHORS;
    return fp32(30.0 * anchors, 4 * anchors * ANCHOR_CHANNELS, 4 * anchors * BOX_FLOATS);
  }

  /** kitti_nms(boxes, numAnchors, scoreThr, iouThr, maxCand, maxOut, out): its worst case, every pair tested. */
  static Work nmsWork(LaunchConfig c, Object[] a) {
    long anchors = i(a, 1);
    long cand = i(a, 4);
    double pairs = (double) cand * Math.min(cand, i(a, 5));
    return fp32(pairs * 150 + cand * Math.log(cand) * 4, 4 * anchors + 4 * cand * BOX_FLOATS,
        4L * (1 + DET_WORDS * (long) i(a, 5)));
  }

  // ------------------------------------------------------------------------------------------------ emulations

  static void assign(LaunchConfig c, KernelArgs a) {
    FloatBuffer pts = f(a, 0);
    IntBuffer cellOf = ints(a, 1);
    IntBuffer count = ints(a, 2);
    int n = a.i32(3);
    Grid g = new Grid(a.f32(4), a.f32(5), a.f32(6), a.f32(7), a.f32(8), a.f32(9), a.f32(10));
    if (g.nx() != a.i32(11) || g.ny() != a.i32(12)) {
      throw new IllegalArgumentException("kitti_assign: grid " + a.i32(11) + "x" + a.i32(12) + " does not match range");
    }
    for (int t = 0; t < n; t++) {
      int cell = g.cell(pts.get(4 * t), pts.get(4 * t + 1), pts.get(4 * t + 2));
      cellOf.put(t, cell);
      if (cell >= 0) {
        count.put(cell, count.get(cell) + 1);
      }
    }
  }

  static void compact(LaunchConfig c, KernelArgs a) {
    IntBuffer count = ints(a, 0);
    IntBuffer pillarOf = ints(a, 1);
    IntBuffer pillarCell = ints(a, 2);
    IntBuffer pillarStart = ints(a, 3);
    IntBuffer num = ints(a, 4);
    int cells = a.i32(5);
    int maxPillars = a.i32(6);
    int next = 0;
    int at = 0;
    for (int cell = 0; cell < cells; cell++) {
      if (count.get(cell) > 0) {
        if (next < maxPillars) {
          pillarOf.put(cell, next);
          pillarCell.put(next, cell);
          pillarStart.put(next, at);
        } else {
          pillarOf.put(cell, -1);
        }
        next++;
        at += count.get(cell);
      } else {
        pillarOf.put(cell, -1);
      }
    }
    for (int p = Math.min(next, maxPillars); p < maxPillars; p++) {
      pillarCell.put(p, -1);
    }
    num.put(0, Math.min(next, maxPillars));
  }

  static void gather(LaunchConfig c, KernelArgs a) {
    IntBuffer cellOf = ints(a, 0);
    IntBuffer pillarOf = ints(a, 1);
    IntBuffer pillarStart = ints(a, 2);
    IntBuffer fill = ints(a, 3);
    IntBuffer idx = ints(a, 4);
    int n = a.i32(5);
    for (int t = 0; t < n; t++) {
      int cell = cellOf.get(t);
      int p = cell < 0 ? -1 : pillarOf.get(cell);
      if (p >= 0) {
        int slot = fill.get(p);
        fill.put(p, slot + 1);
        idx.put(pillarStart.get(p) + slot, t);
      }
    }
  }

  static void pillarSort(LaunchConfig c, KernelArgs a) {
    IntBuffer fill = ints(a, 0);
    IntBuffer pillarStart = ints(a, 1);
    IntBuffer idx = ints(a, 2);
    int maxPillars = a.i32(3);
    int maxPts = a.i32(4);
    for (int p = 0; p < maxPillars; p++) {
      int n = fill.get(p);
      if (n == 0) {
        continue;
      }
      int base = pillarStart.get(p);
      int[] v = new int[n];
      idx.get(base, v, 0, n);
      Arrays.sort(v);
      int k = Math.min(n, maxPts);
      idx.put(base, v, 0, k);
      for (int j = k; j < n; j++) {
        idx.put(base + j, -1);
      }
    }
  }

  static void pointnet(LaunchConfig c, KernelArgs a) {
    FloatBuffer pts = f(a, 0);
    IntBuffer idx = ints(a, 1);
    IntBuffer pillarStart = ints(a, 2);
    IntBuffer fill = ints(a, 3);
    IntBuffer pillarCell = ints(a, 4);
    float[] w = floats(a, 5);
    float[] scale = floats(a, 6);
    float[] shift = floats(a, 7);
    FloatBuffer feat = f(a, 8);
    int maxPillars = a.i32(9);
    int maxPts = a.i32(10);
    int ch = a.i32(11);
    float xMin = a.f32(12);
    float yMin = a.f32(13);
    float pillar = a.f32(14);
    int nx = a.i32(15);
    float[] pf = new float[maxPts * POINT_FEATURES];
    float[] out = new float[ch];
    for (int p = 0; p < maxPillars; p++) {
      int cell = pillarCell.get(p);
      int n = cell < 0 ? 0 : Math.min(fill.get(p), maxPts);
      pointFeatures(pts, idx, n == 0 ? 0 : pillarStart.get(p), n, cell, xMin, yMin, pillar, nx, pf);
      pointNet(pf, n, w, scale, shift, ch, out);
      feat.put(p * ch, out);
    }
  }

  /**
   * The decorated features of a pillar's {@code n} points (their indices at {@code idx[base..base+n)}) into
   * {@code pf}: x, y, z, r, the offsets from the points' mean (summed in point order, divided by n) and from the
   * pillar's centre.
   */
  static void pointFeatures(FloatBuffer pts, IntBuffer idx, int base, int n, int cell, float xMin, float yMin,
      float pillar, int nx, float[] pf) {
    float sx = 0f;
    float sy = 0f;
    float sz = 0f;
    for (int k = 0; k < n; k++) {
      int t = idx.get(base + k);
      sx += pts.get(4 * t);
      sy += pts.get(4 * t + 1);
      sz += pts.get(4 * t + 2);
    }
    float mx = sx / n;
    float my = sy / n;
    float mz = sz / n;
    float cx = xMin + (cell % Math.max(nx, 1) + 0.5f) * pillar;
    float cy = yMin + (cell / Math.max(nx, 1) + 0.5f) * pillar;
    for (int k = 0; k < n; k++) {
      int t = idx.get(base + k);
      float x = pts.get(4 * t);
      float y = pts.get(4 * t + 1);
      float z = pts.get(4 * t + 2);
      int o = k * POINT_FEATURES;
      pf[o] = x;
      pf[o + 1] = y;
      pf[o + 2] = z;
      pf[o + 3] = pts.get(4 * t + 3);
      pf[o + 4] = x - mx;
      pf[o + 5] = y - my;
      pf[o + 6] = z - mz;
      pf[o + 7] = x - cx;
      pf[o + 8] = y - cy;
    }
  }

  /**
   * The pillar feature net on {@code n} points' features: per channel, {@code max over points of
   * relu(fma(w·f, scale, shift))} (the dot product in feature order with fused multiply-adds; 0 for an empty pillar).
   */
  static void pointNet(float[] pf, int n, float[] w, float[] scale, float[] shift, int ch, float[] out) {
    for (int c = 0; c < ch; c++) {
      float best = 0f;
      for (int k = 0; k < n; k++) {
        float acc = 0f;
        for (int j = 0; j < POINT_FEATURES; j++) {
          acc = Math.fma(w[c * POINT_FEATURES + j], pf[k * POINT_FEATURES + j], acc);
        }
        best = Math.max(best, Math.max(Math.fma(acc, scale[c], shift[c]), 0f));
      }
      out[c] = best;
    }
  }

  static void scatterBev(LaunchConfig c, KernelArgs a) {
    FloatBuffer feat = f(a, 0);
    IntBuffer pillarCell = ints(a, 1);
    FloatBuffer canvas = f(a, 2);
    int maxPillars = a.i32(3);
    int ch = a.i32(4);
    int cells = a.i32(5);
    for (int p = 0; p < maxPillars; p++) {
      int cell = pillarCell.get(p);
      if (cell >= 0) {
        for (int k = 0; k < ch; k++) {
          canvas.put(k * cells + cell, feat.get(p * ch + k));
        }
      }
    }
  }

  static void im2col(LaunchConfig c, KernelArgs a) {
    int cin = a.i32(2);
    int h = a.i32(3);
    int w = a.i32(4);
    int ho = a.i32(5);
    int wo = a.i32(6);
    int stride = a.i32(7);
    float[] in = new float[cin * h * w];
    f(a, 0).get(in);
    float[] col = new float[cin * 9 * ho * wo];
    int n = ho * wo;
    for (int ci = 0; ci < cin; ci++) {
      for (int ky = 0; ky < 3; ky++) {
        for (int kx = 0; kx < 3; kx++) {
          int row = (ci * 9 + ky * 3 + kx) * n;
          for (int oy = 0; oy < ho; oy++) {
            int y = oy * stride + ky - 1;
            for (int ox = 0; ox < wo; ox++) {
              int x = ox * stride + kx - 1;
              col[row + oy * wo + ox] = y >= 0 && y < h && x >= 0 && x < w ? in[(ci * h + y) * w + x] : 0f;
            }
          }
        }
      }
    }
    f(a, 1).put(col);
  }

  static void biasAct(LaunchConfig c, KernelArgs a) {
    FloatBuffer y = f(a, 0);
    FloatBuffer bias = f(a, 1);
    int cout = a.i32(2);
    int n = a.i32(3);
    boolean relu = a.i32(4) != 0;
    for (int o = 0; o < cout; o++) {
      float b = bias.get(o);
      for (int k = 0; k < n; k++) {
        float v = y.get(o * n + k) + b;
        y.put(o * n + k, relu ? Math.max(v, 0f) : v);
      }
    }
  }

  static void upsample(LaunchConfig c, KernelArgs a) {
    FloatBuffer in = f(a, 0);
    FloatBuffer out = f(a, 1);
    int ch = a.i32(2);
    int h = a.i32(3);
    int w = a.i32(4);
    int ho = a.i32(5);
    int wo = a.i32(6);
    int off = a.i32(7);
    for (int k = 0; k < ch; k++) {
      for (int y = 0; y < ho; y++) {
        for (int x = 0; x < wo; x++) {
          out.put(((off + k) * ho + y) * wo + x, in.get((k * h + Math.min(y / 2, h - 1)) * w + Math.min(x / 2, w - 1)));
        }
      }
    }
  }

  static void decode(LaunchConfig c, KernelArgs a) {
    FloatBuffer head = f(a, 0);
    FloatBuffer boxes = f(a, 1);
    int n1 = a.i32(2);
    int wo = a.i32(3);
    float xMin = a.f32(4);
    float yMin = a.f32(5);
    float stride = a.f32(6);
    float[] r = new float[ANCHOR_CHANNELS];
    float[] box = new float[BOX_FLOATS];
    for (int pos = 0; pos < n1; pos++) {
      for (int an = 0; an < ANCHORS; an++) {
        for (int k = 0; k < ANCHOR_CHANNELS; k++) {
          r[k] = head.get((an * ANCHOR_CHANNELS + k) * n1 + pos);
        }
        decodeOne(r, pos, an, wo, xMin, yMin, stride, box);
        boxes.put((pos * ANCHORS + an) * BOX_FLOATS, box);
      }
    }
  }

  /**
   * One anchor's box from its 8 head outputs (SECOND's encoding): centre {@code anchor + (dx, dy)·diagonal},
   * {@code z + dz·h}, sizes {@code anchor·exp(d)}, heading {@code anchor + dr}, score {@code sigmoid(logit)}.
   */
  static void decodeOne(float[] r, int pos, int an, int wo, float xMin, float yMin, float stride, float[] box) {
    int cls = an / 2;
    float[] s = ANCHOR_SIZES[cls];
    float xa = xMin + (pos % wo + 0.5f) * stride;
    float ya = yMin + (pos / wo + 0.5f) * stride;
    float ra = (an % 2) * 1.5707964f;
    float diag = (float) Math.sqrt(s[0] * s[0] + s[1] * s[1]);
    box[0] = Math.fma(r[1], diag, xa);
    box[1] = Math.fma(r[2], diag, ya);
    box[2] = Math.fma(r[3], s[2], s[3]);
    box[3] = s[0] * (float) Math.exp(r[4]);
    box[4] = s[1] * (float) Math.exp(r[5]);
    box[5] = s[2] * (float) Math.exp(r[6]);
    box[6] = ra + r[7];
    box[7] = 1f / (1f + (float) Math.exp(-r[0]));
    box[8] = cls;
  }

  static void nms(LaunchConfig c, KernelArgs a) {
    float[] boxes = floats(a, 0);
    int numAnchors = a.i32(1);
    float scoreThr = a.f32(2);
    float iouThr = a.f32(3);
    int maxCand = a.i32(4);
    int maxOut = a.i32(5);
    int[] kept = nmsKeep(boxes, numAnchors, scoreThr, iouThr, maxCand, maxOut);
    ByteBuffer out = a.memory(6);
    out.putInt(0, kept.length);
    for (int k = 0; k < kept.length; k++) {
      int o = 4 * (1 + k * DET_WORDS);
      out.putInt(o, kept[k]);
      for (int j = 0; j < BOX_FLOATS; j++) {
        out.putFloat(o + 4 + 4 * j, boxes[kept[k] * BOX_FLOATS + j]);
      }
    }
  }

  /**
   * Rotated-box non-maximum suppression: the first {@code maxCand} anchors (in index order) whose score exceeds
   * {@code scoreThr}, by score descending (ties by index), each kept unless its BEV IoU with a kept box of the same
   * class exceeds {@code iouThr}, until {@code maxOut} are kept. Returns the kept anchors' indices in order.
   */
  static int[] nmsKeep(float[] boxes, int numAnchors, float scoreThr, float iouThr, int maxCand, int maxOut) {
    int[] cand = new int[maxCand];
    int nc = 0;
    for (int i = 0; i < numAnchors && nc < maxCand; i++) {
      if (boxes[i * BOX_FLOATS + 7] > scoreThr) {
        cand[nc++] = i;
      }
    }
    Integer[] order = new Integer[nc];
    for (int k = 0; k < nc; k++) {
      order[k] = cand[k];
    }
    Arrays.sort(order, (x, y) -> {
      int s = Float.compare(boxes[y * BOX_FLOATS + 7], boxes[x * BOX_FLOATS + 7]);
      return s != 0 ? s : Integer.compare(x, y);
    });
    boolean[] sup = new boolean[nc];
    int[] kept = new int[Math.min(nc, maxOut)];
    int nk = 0;
    for (int i = 0; i < nc && nk < maxOut; i++) {
      if (sup[i]) {
        continue;
      }
      int bi = order[i] * BOX_FLOATS;
      kept[nk++] = order[i];
      for (int j = i + 1; j < nc; j++) {
        int bj = order[j] * BOX_FLOATS;
        if (!sup[j] && boxes[bi + 8] == boxes[bj + 8] && Bev.iou(boxes[bi], boxes[bi + 1], boxes[bi + 3],
            boxes[bi + 4], boxes[bi + 6], boxes[bj], boxes[bj + 1], boxes[bj + 3], boxes[bj + 4], boxes[bj + 6])
            > iouThr) {
          sup[j] = true;
        }
      }
    }
    return Arrays.copyOf(kept, nk);
  }
}
