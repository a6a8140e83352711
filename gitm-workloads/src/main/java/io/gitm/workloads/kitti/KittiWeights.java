package io.gitm.workloads.kitti;

import java.util.SplittableRandom;

/**
 * The detector's parameters, seeded: the pillar feature net (a linear layer 9 → C without bias, then an inference
 * batch norm folded into a per-channel scale and shift) and the backbone's convolutions (batch norm folded into their
 * biases) and the head.
 *
 * @param channels C, the pillar features' width
 * @param pfnW [C][9]; {@code pfnScale}, {@code pfnShift} [C]
 * @param convs the backbone: block 1 (C → C stride 2, C → C), block 2 (C → 2C stride 2, 2C → 2C), 3×3 each
 * @param head the 1×1 head over the neck's 3C channels to 6 anchors × 8 outputs
 */
record KittiWeights(int channels, float[] pfnW, float[] pfnScale, float[] pfnShift, Conv[] convs, Conv head) {
  /**
   * A convolution {@code cin → cout}, {@code k}×{@code k} (padding k/2), with its weights [cout][cin·k·k] and bias
   * [cout].
   */
  record Conv(int cin, int cout, int k, int stride, float[] w, float[] b) {
  }

  /**
   * Weights drawn from {@code seed}, each parameter from its own stream: convolutions N(0, 2/fan_in) with biases
   * N(0, 0.1²); the linear layer N(0, 1/9), its scale 0.2·(1 + N(0, 0.1²)) (coordinates are metres, up to 70), its
   * shift N(0, 0.1²); the head's box rows N(0, 0.1²/fan_in) with biases 0,
   * its score rows one N(0, 9/fan_in) row shared by the anchors plus a small fixed per-anchor pattern, biases -2.
   */
  static KittiWeights seeded(int channels, long seed) {
    int c = channels;
    float[] w = normal(seed, 1, c * KittiKernels.POINT_FEATURES, 1.0 / 3, 0);
    float[] scale = normal(seed, 2, c, 0.02, 0.2);
    float[] shift = normal(seed, 3, c, 0.1, 0);
    Conv[] convs = {conv(seed, 10, c, c, 3, 2), conv(seed, 11, c, c, 3, 1), conv(seed, 12, c, 2 * c, 3, 2),
        conv(seed, 13, 2 * c, 2 * c, 3, 1)};
    int out = KittiKernels.ANCHORS * KittiKernels.ANCHOR_CHANNELS;
    float[] hw = normal(seed, 20, out * 3 * c, 0.1 / Math.sqrt(3 * c), 0);
    float[] score = normal(seed, 21, 3 * c, 3 / Math.sqrt(3 * c), 0);
    float[] hb = new float[out];
    for (int a = 0; a < KittiKernels.ANCHORS; a++) {
      hb[a * KittiKernels.ANCHOR_CHANNELS] = -2f;
      System.arraycopy(score, 0, hw, a * KittiKernels.ANCHOR_CHANNELS * 3 * c, 3 * c);
      for (int k = 0; k < 3 * c; k++) {
        hw[a * KittiKernels.ANCHOR_CHANNELS * 3 * c + k] += (float) (0.2 / Math.sqrt(3 * c) * Math.sin(7 * k + a));
      }
    }
    return new KittiWeights(c, w, scale, shift, convs, new Conv(3 * c, out, 1, 1, hw, hb));
  }

  private static Conv conv(long seed, int id, int cin, int cout, int k, int stride) {
    int fan = cin * k * k;
    return new Conv(cin, cout, k, stride, normal(seed, 100 + id, cout * fan, Math.sqrt(2.0 / fan), 0),
        normal(seed, 200 + id, cout, 0.1, 0));
  }

  private static float[] normal(long seed, int stream, int n, double sd, double mean) {
    SplittableRandom r = new SplittableRandom(seed * 7919 + stream);
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) (mean + sd * r.nextGaussian());
    }
    return v;
  }
}
