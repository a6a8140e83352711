package io.gitm.workloads.kitti;

import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The detector in plain Java, for small inputs: the same pipeline written directly (pillars by a sorted map of cells,
 * convolutions as nested loops summed in double, no im2col or GEMM), against which the device's output is checked.
 * It shares the pillar feature net's per-point arithmetic ({@link KittiKernels#pointFeatures}, {@link
 * KittiKernels#pointNet}), one anchor's decoding ({@link KittiKernels#decodeOne}) and the BEV IoU ({@link Bev}) with
 * the emulations, so that its pillars and features are exact and NMS decides on the same numbers up to the
 * backbone's rounding.
 */
final class KittiReference {
  private KittiReference() {
  }

  /** The reference's output for one frame: its pillars and its detections. */
  record Output(Pillars pillars, Detections detections) {
  }

  static Output run(KittiWorkload.Params p, KittiWeights wt, Scan scan) {
    Grid g = p.grid();
    float[] xyzr = scan.xyzr();
    int n = scan.points();
    TreeMap<Integer, List<Integer>> byCell = new TreeMap<>();
    for (int t = 0; t < n; t++) {
      int cell = g.cell(xyzr[4 * t], xyzr[4 * t + 1], xyzr[4 * t + 2]);
      if (cell >= 0) {
        byCell.computeIfAbsent(cell, k -> new ArrayList<>()).add(t);
      }
    }
    int np = Math.min(byCell.size(), p.maxPillars());
    int[] cells = new int[np];
    int[][] pts = new int[np][];
    int k = 0;
    for (var e : byCell.entrySet()) {
      if (k == np) {
        break;
      }
      cells[k] = e.getKey();
      pts[k] = e.getValue().stream().limit(p.maxPoints()).mapToInt(Integer::intValue).toArray();
      k++;
    }
    int c = wt.channels();
    int nx = g.nx();
    int ny = g.ny();
    float[] canvas = new float[c * nx * ny];
    FloatBuffer points = FloatBuffer.wrap(xyzr);
    float[] pf = new float[p.maxPoints() * KittiKernels.POINT_FEATURES];
    float[] feat = new float[c];
    for (int q = 0; q < np; q++) {
      IntBuffer idx = IntBuffer.wrap(pts[q]);
      KittiKernels.pointFeatures(points, idx, 0, pts[q].length, cells[q], g.xMin(), g.yMin(), g.pillar(), nx, pf);
      KittiKernels.pointNet(pf, pts[q].length, wt.pfnW(), wt.pfnScale(), wt.pfnShift(), c, feat);
      for (int ch = 0; ch < c; ch++) {
        canvas[ch * nx * ny + cells[q]] = feat[ch];
      }
    }
    KittiWeights.Conv[] cv = wt.convs();
    int h1 = (ny - 1) / 2 + 1;
    int w1 = (nx - 1) / 2 + 1;
    int h2 = (h1 - 1) / 2 + 1;
    int w2 = (w1 - 1) / 2 + 1;
    float[] b1a = conv(canvas, ny, nx, cv[0], h1, w1, true);
    float[] b1b = conv(b1a, h1, w1, cv[1], h1, w1, true);
    float[] b2a = conv(b1b, h1, w1, cv[2], h2, w2, true);
    float[] b2b = conv(b2a, h2, w2, cv[3], h2, w2, true);
    int n1 = h1 * w1;
    float[] cat = new float[3 * c * n1];
    System.arraycopy(b1b, 0, cat, 0, c * n1);
    for (int ch = 0; ch < 2 * c; ch++) {
      for (int y = 0; y < h1; y++) {
        for (int x = 0; x < w1; x++) {
          cat[((c + ch) * h1 + y) * w1 + x] = b2b[(ch * h2 + y / 2) * w2 + x / 2];
        }
      }
    }
    float[] head = conv(cat, h1, w1, wt.head(), h1, w1, false);
    float[] boxes = new float[n1 * KittiKernels.ANCHORS * KittiKernels.BOX_FLOATS];
    float[] r = new float[KittiKernels.ANCHOR_CHANNELS];
    float[] box = new float[KittiKernels.BOX_FLOATS];
    for (int pos = 0; pos < n1; pos++) {
      for (int an = 0; an < KittiKernels.ANCHORS; an++) {
        for (int j = 0; j < KittiKernels.ANCHOR_CHANNELS; j++) {
          r[j] = head[(an * KittiKernels.ANCHOR_CHANNELS + j) * n1 + pos];
        }
        KittiKernels.decodeOne(r, pos, an, w1, g.xMin(), g.yMin(), 2 * g.pillar(), box);
        System.arraycopy(box, 0, boxes, (pos * KittiKernels.ANCHORS + an) * KittiKernels.BOX_FLOATS, box.length);
      }
    }
    int[] kept = KittiKernels.nmsKeep(boxes, n1 * KittiKernels.ANCHORS, p.scoreThreshold(), p.iouThreshold(),
        p.maxCandidates(), p.maxDetections());
    float[] keptBoxes = new float[kept.length * KittiKernels.BOX_FLOATS];
    for (int q = 0; q < kept.length; q++) {
      System.arraycopy(boxes, kept[q] * KittiKernels.BOX_FLOATS, keptBoxes, q * KittiKernels.BOX_FLOATS,
          KittiKernels.BOX_FLOATS);
    }
    return new Output(new Pillars(cells, pts), new Detections(kept, keptBoxes));
  }

  /** A k×k convolution (padding k/2) summed in double, then bias and optionally ReLU. */
  static float[] conv(float[] in, int h, int w, KittiWeights.Conv cv, int ho, int wo, boolean relu) {
    int kk = cv.k();
    int pad = kk / 2;
    float[] out = new float[cv.cout() * ho * wo];
    for (int o = 0; o < cv.cout(); o++) {
      for (int oy = 0; oy < ho; oy++) {
        for (int ox = 0; ox < wo; ox++) {
          double s = 0;
          for (int ci = 0; ci < cv.cin(); ci++) {
            for (int ky = 0; ky < kk; ky++) {
              int y = oy * cv.stride() + ky - pad;
              if (y < 0 || y >= h) {
                continue;
              }
              for (int kx = 0; kx < kk; kx++) {
                int x = ox * cv.stride() + kx - pad;
                if (x >= 0 && x < w) {
                  s += (double) cv.w()[(o * cv.cin() + ci) * kk * kk + ky * kk + kx] * in[(ci * h + y) * w + x];
                }
              }
            }
          }
          float v = (float) s + cv.b()[o];
          out[(o * ho + oy) * wo + ox] = relu ? Math.max(v, 0f) : v;
        }
      }
    }
    return out;
  }
}
