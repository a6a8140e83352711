package io.gitm.workloads.af2;

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
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * The kernels of {@code /kernels/af2.cu}: for each, its launch shape, its work model (a function of the launch and its
 * arguments: the floating-point operations and the bytes it must move through device memory, each tensor read or
 * written once) and a host emulation with the CUDA code's effect on memory, in the same order of operations for
 * every reduction (a lane's strided partial sums then the warp's butterfly; dot products in index order with a fused
 * multiply-add). Only the exponential and the arctangent may differ from the GPU's in their last bits.
 */
final class Af2Kernels {
  private Af2Kernels() {
  }

  static final String MSA_FEAT = "af2_msa_feat";
  static final String TARGET_FEAT = "af2_target_feat";
  static final String RELPOS = "af2_relpos";
  static final String MSA_INIT = "af2_msa_init";
  static final String PAIR_INIT = "af2_pair_init";
  static final String LAYER_NORM = "af2_layer_norm";
  static final String BIAS_ACT = "af2_bias_act";
  static final String GATE_MUL = "af2_gate_mul";
  static final String RESIDUAL = "af2_residual";
  static final String GATED_RESIDUAL = "af2_gated_residual";
  static final String ATTN_LOGITS = "af2_attn_logits";
  static final String SOFTMAX = "af2_softmax";
  static final String ATTN_OUT = "af2_attn_out";
  static final String TRI_MULT = "af2_tri_mult";
  static final String OPM_REARRANGE = "af2_opm_rearrange";

  /** Channels of AlphaFold2's monomer MSA features and query features. */
  static final int MSA_FEATURES = 49;
  static final int TARGET_FEATURES = 22;
  /** Layer norm epsilon (Haiku's default, which AlphaFold2 keeps). */
  static final float LN_EPS = 1e-5f;
  /** Threads per block of the one-thread-per-element kernels and of the warp-per-row kernels. */
  static final int BLOCK = 256;
  static final int ROW_BLOCK = 128;
  /** Largest head dimension the attention kernels take (two channels per lane). */
  static final int MAX_HEAD_DIM = 64;

  static final KernelModule MODULE = new KernelModule("af2", "/kernels/af2.cu", List.of(
      new KernelDef(MSA_FEAT, Af2Kernels::msaFeatWork, Af2Kernels::msaFeat),
      new KernelDef(TARGET_FEAT, Af2Kernels::targetFeatWork, Af2Kernels::targetFeat),
      new KernelDef(RELPOS, Af2Kernels::relposWork, Af2Kernels::relpos),
      new KernelDef(MSA_INIT, Af2Kernels::msaInitWork, Af2Kernels::msaInit),
      new KernelDef(PAIR_INIT, Af2Kernels::pairInitWork, Af2Kernels::pairInit),
      new KernelDef(LAYER_NORM, Af2Kernels::layerNormWork, Af2Kernels::layerNorm),
      new KernelDef(BIAS_ACT, Af2Kernels::biasActWork, Af2Kernels::biasAct),
      new KernelDef(GATE_MUL, Af2Kernels::gateMulWork, Af2Kernels::gateMul),
      new KernelDef(RESIDUAL, Af2Kernels::residualWork, Af2Kernels::residual),
      new KernelDef(GATED_RESIDUAL, Af2Kernels::gatedResidualWork, Af2Kernels::gatedResidual),
      new KernelDef(ATTN_LOGITS, Af2Kernels::logitsWork, Af2Kernels::logits),
      new KernelDef(SOFTMAX, Af2Kernels::softmaxWork, Af2Kernels::softmax),
      new KernelDef(ATTN_OUT, Af2Kernels::attnOutWork, Af2Kernels::attnOut),
      new KernelDef(TRI_MULT, Af2Kernels::triMultWork, Af2Kernels::triMult),
      new KernelDef(OPM_REARRANGE, Af2Kernels::rearrangeWork, Af2Kernels::rearrange)));

  // ------------------------------------------------------------------------------------------- launch shapes

  /** One thread per element. */
  static LaunchConfig elementwise(long n) {
    return LaunchConfig.cover(n, BLOCK);
  }

  /** One warp per row. */
  static LaunchConfig perRow(long rows) {
    return LaunchConfig.cover(rows * 32, ROW_BLOCK);
  }

  /** The logits of {@code chunk} batches of {@code heads} heads. */
  static LaunchConfig logitsLaunch(int chunk, int heads, int nq, int nk, int dim) {
    return new LaunchConfig(new Dim3(ceil(nk, 32), ceil(nq, 32), chunk * heads), new Dim3(32, 8, 1),
        4 * 2 * 32 * (dim + 1));
  }

  static LaunchConfig attnOutLaunch(int chunk, int heads, int nq, int dim) {
    return new LaunchConfig(new Dim3(ceil(nq, 32), 1, chunk * heads), new Dim3(32, 8, 1), 4 * (32 * 33 + 32 * dim));
  }

  static LaunchConfig triMultLaunch(int nRes, int c) {
    return new LaunchConfig(new Dim3(ceil(nRes, 16), ceil(nRes, 16), ceil(c, 32)), new Dim3(32, 8, 1), 0);
  }

  private static int ceil(int a, int b) {
    return (a + b - 1) / b;
  }

  // --------------------------------------------------------------------------------------------- work models

  /** af2_msa_feat(msa, del, feat, n): two ints in, 49 floats out per element. */
  static Work msaFeatWork(LaunchConfig c, Object[] a) {
    long n = i(a, 3);
    return fp32(10.0 * n, 8 * n, 4L * MSA_FEATURES * n);
  }

  /** af2_target_feat(aatype, feat, n). */
  static Work targetFeatWork(LaunchConfig c, Object[] a) {
    long n = i(a, 2);
    return fp32(0, 4 * n, 4L * TARGET_FEATURES * n);
  }

  /** af2_relpos(relpos, nRes, maxRel). */
  static Work relposWork(LaunchConfig c, Object[] a) {
    long n = (long) i(a, 1) * i(a, 1);
    return fp32(0, 0, 4 * n * (2L * i(a, 2) + 1));
  }

  /** af2_msa_init(m, pmsa, bmsa, p1d, b1d, nSeq, nRes, c). */
  static Work msaInitWork(LaunchConfig c, Object[] a) {
    long rc = (long) i(a, 6) * i(a, 7);
    long n = i(a, 5) * rc;
    return fp32(3.0 * n, 4 * n + 4 * rc + 8L * i(a, 7), 4 * n);
  }

  /** af2_pair_init(z, left, bl, right, br, rel, brel, nRes, c). */
  static Work pairInitWork(LaunchConfig c, Object[] a) {
    long rc = (long) i(a, 7) * i(a, 8);
    long n = i(a, 7) * rc;
    return fp32(5.0 * n, 4 * n + 8 * rc + 12L * i(a, 8), 4 * n);
  }

  /** af2_layer_norm(x, scale, offset, y, rows, c): mean, variance, normalize and scale. */
  static Work layerNormWork(LaunchConfig c, Object[] a) {
    long n = (long) i(a, 4) * i(a, 5);
    return fp32(8.0 * n, 4 * n + 8L * i(a, 5), 4 * n);
  }

  /** af2_bias_act(y, bias, n, c, relu). */
  static Work biasActWork(LaunchConfig c, Object[] a) {
    long n = i(a, 2);
    return fp32(2.0 * n, 4 * n + 4L * i(a, 3), 4 * n);
  }

  /** af2_gate_mul(p, bp, g, bg, out, n, c): two bias adds, a sigmoid (exp, add, divide) and a product. */
  static Work gateMulWork(LaunchConfig c, Object[] a) {
    long n = i(a, 5);
    return fp32(6.0 * n, 8 * n + 8L * i(a, 6), 4 * n);
  }

  /** af2_residual(x, y, b, n, c, denom). */
  static Work residualWork(LaunchConfig c, Object[] a) {
    long n = i(a, 3);
    return fp32(3.0 * n, 8 * n + 4L * i(a, 4), 4 * n);
  }

  /** af2_gated_residual(x, y, by, g, bg, n, c). */
  static Work gatedResidualWork(LaunchConfig c, Object[] a) {
    long n = i(a, 5);
    return fp32(7.0 * n, 12 * n + 8L * i(a, 6), 4 * n);
  }

  /**
   * af2_attn_logits(q, k, bias, logits, b0, heads, nq, nk, dim, sb, st, bq, bk, scale, hasBias): a dot product of
   * {@code dim} per logit, the chunk's queries and keys read once, the bias once per head.
   */
  static Work logitsWork(LaunchConfig c, Object[] a) {
    long bh = c.grid().z();
    long nq = i(a, 6);
    long nk = i(a, 7);
    long dim = i(a, 8);
    boolean bias = i(a, 14) != 0;
    long logits = bh * nq * nk;
    long read = 4 * bh * (nq + nk) * dim + (bias ? 4L * i(a, 5) * nq * nk : 0);
    return fp32(logits * (2.0 * dim + 1 + (bias ? 1 : 0)), read, 4 * logits);
  }

  /** af2_softmax(x, rows, n): max, exp, sum, divide. */
  static Work softmaxWork(LaunchConfig c, Object[] a) {
    long n = (long) i(a, 1) * i(a, 2);
    return fp32(5.0 * n, 4 * n, 4 * n);
  }

  /** af2_attn_out(p, v, g, gb, o, b0, heads, nq, nk, dim, sb, st): weights times values, then the gate. */
  static Work attnOutWork(LaunchConfig c, Object[] a) {
    long bh = c.grid().z();
    long nq = i(a, 7);
    long nk = i(a, 8);
    long dim = i(a, 9);
    long out = bh * nq * dim;
    long read = 4 * bh * (nq * nk + nk * dim) + 4 * out + 4L * i(a, 6) * dim;
    return fp32(2.0 * bh * nq * nk * dim + 5.0 * out, read, 4 * out);
  }

  /** af2_tri_mult(x, y, out, nRes, c, sxi, sxk, syj, syk): a sum over k of products for every (i, j, c). */
  static Work triMultWork(LaunchConfig c, Object[] a) {
    long r = i(a, 3);
    long ch = i(a, 4);
    return fp32(2.0 * r * r * r * ch, 8 * r * r * ch, 4 * r * r * ch);
  }

  /** af2_opm_rearrange(in, out, nRes, co). */
  static Work rearrangeWork(LaunchConfig c, Object[] a) {
    long n = (long) i(a, 2) * i(a, 2) * i(a, 3) * i(a, 3);
    return fp32(0, 4 * n, 4 * n);
  }

  // ------------------------------------------------------------------------------------------------ emulations

  static float sigmoid(float x) {
    return 1.0f / (1.0f + (float) Math.exp(-x));
  }

  /** The CUDA code's butterfly over a warp's 32 partial values (every lane ends with this value). */
  static float warpSum(float[] lanes) {
    float[] v = lanes.clone();
    float[] w = new float[32];
    for (int o = 16; o > 0; o >>= 1) {
      for (int l = 0; l < 32; l++) {
        w[l] = v[l] + v[l ^ o];
      }
      float[] t = v;
      v = w;
      w = t;
    }
    return v[0];
  }

  static float warpMax(float[] lanes) {
    float m = lanes[0];
    for (float x : lanes) {
      m = Math.max(m, x);
    }
    return m;
  }

  static void msaFeat(LaunchConfig c, KernelArgs a) {
    IntBuffer msa = ints(a, 0);
    IntBuffer del = ints(a, 1);
    FloatBuffer feat = f(a, 2);
    int n = a.i32(3);
    for (int t = 0; t < n; t++) {
      int at = t * MSA_FEATURES;
      int code = msa.get(t);
      float d = del.get(t);
      float value = deletionValue(d);
      for (int k = 0; k < 23; k++) {
        float hot = k == code ? 1.0f : 0.0f;
        feat.put(at + k, hot);
        feat.put(at + 25 + k, hot);
      }
      feat.put(at + 23, d > 0 ? 1.0f : 0.0f);
      feat.put(at + 24, value);
      feat.put(at + 48, value);
    }
  }

  /** AlphaFold's deletion value: atan(d / 3) * 2 / pi, in float as the kernel computes it. */
  static float deletionValue(float d) {
    return (float) Math.atan(d / 3.0f) * (2.0f / 3.14159265358979f);
  }

  static void targetFeat(LaunchConfig c, KernelArgs a) {
    IntBuffer aatype = ints(a, 0);
    FloatBuffer feat = f(a, 1);
    int n = a.i32(2);
    for (int r = 0; r < n; r++) {
      feat.put(r * TARGET_FEATURES, 0.0f);
      for (int k = 0; k < 21; k++) {
        feat.put(r * TARGET_FEATURES + 1 + k, k == aatype.get(r) ? 1.0f : 0.0f);
      }
    }
  }

  static void relpos(LaunchConfig c, KernelArgs a) {
    FloatBuffer out = f(a, 0);
    int n = a.i32(1);
    int maxRel = a.i32(2);
    int bins = 2 * maxRel + 1;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        int hot = Math.min(Math.max(i - j + maxRel, 0), 2 * maxRel);
        int at = (i * n + j) * bins;
        for (int b = 0; b < bins; b++) {
          out.put(at + b, b == hot ? 1.0f : 0.0f);
        }
      }
    }
  }

  static void msaInit(LaunchConfig c, KernelArgs a) {
    FloatBuffer m = f(a, 0);
    FloatBuffer pm = f(a, 1);
    FloatBuffer bm = f(a, 2);
    FloatBuffer p1 = f(a, 3);
    FloatBuffer b1 = f(a, 4);
    int s = a.i32(5);
    int r = a.i32(6);
    int ch = a.i32(7);
    int n = s * r * ch;
    for (int t = 0; t < n; t++) {
      int k = t % ch;
      int res = (t / ch) % r;
      m.put(t, (p1.get(res * ch + k) + b1.get(k)) + (pm.get(t) + bm.get(k)));
    }
  }

  static void pairInit(LaunchConfig c, KernelArgs a) {
    FloatBuffer z = f(a, 0);
    FloatBuffer left = f(a, 1);
    FloatBuffer bl = f(a, 2);
    FloatBuffer right = f(a, 3);
    FloatBuffer br = f(a, 4);
    FloatBuffer rel = f(a, 5);
    FloatBuffer brel = f(a, 6);
    int r = a.i32(7);
    int ch = a.i32(8);
    int n = r * r * ch;
    for (int t = 0; t < n; t++) {
      int k = t % ch;
      int j = (t / ch) % r;
      int i = t / (ch * r);
      z.put(t, ((left.get(i * ch + k) + bl.get(k)) + (right.get(j * ch + k) + br.get(k))) + (rel.get(t) + brel.get(k)));
    }
  }

  static void layerNorm(LaunchConfig c, KernelArgs a) {
    FloatBuffer x = f(a, 0);
    FloatBuffer scale = f(a, 1);
    FloatBuffer offset = f(a, 2);
    FloatBuffer y = f(a, 3);
    int rows = a.i32(4);
    int ch = a.i32(5);
    float[] lanes = new float[32];
    for (int row = 0; row < rows; row++) {
      int at = row * ch;
      for (int l = 0; l < 32; l++) {
        float s = 0.0f;
        for (int k = l; k < ch; k += 32) {
          s += x.get(at + k);
        }
        lanes[l] = s;
      }
      float mean = warpSum(lanes) / (float) ch;
      for (int l = 0; l < 32; l++) {
        float v = 0.0f;
        for (int k = l; k < ch; k += 32) {
          float d = x.get(at + k) - mean;
          v = Math.fma(d, d, v);
        }
        lanes[l] = v;
      }
      float var = warpSum(lanes) / (float) ch;
      float inv = 1.0f / (float) Math.sqrt(var + LN_EPS);
      for (int k = 0; k < ch; k++) {
        y.put(at + k, Math.fma((x.get(at + k) - mean) * inv, scale.get(k), offset.get(k)));
      }
    }
  }

  static void biasAct(LaunchConfig c, KernelArgs a) {
    FloatBuffer y = f(a, 0);
    FloatBuffer bias = f(a, 1);
    int n = a.i32(2);
    int ch = a.i32(3);
    boolean relu = a.i32(4) != 0;
    for (int t = 0; t < n; t++) {
      float v = y.get(t) + bias.get(t % ch);
      y.put(t, relu && v < 0.0f ? 0.0f : v);
    }
  }

  static void gateMul(LaunchConfig c, KernelArgs a) {
    FloatBuffer p = f(a, 0);
    FloatBuffer bp = f(a, 1);
    FloatBuffer g = f(a, 2);
    FloatBuffer bg = f(a, 3);
    FloatBuffer out = f(a, 4);
    int n = a.i32(5);
    int ch = a.i32(6);
    for (int t = 0; t < n; t++) {
      int k = t % ch;
      out.put(t, (p.get(t) + bp.get(k)) * sigmoid(g.get(t) + bg.get(k)));
    }
  }

  static void residual(LaunchConfig c, KernelArgs a) {
    FloatBuffer x = f(a, 0);
    FloatBuffer y = f(a, 1);
    FloatBuffer b = f(a, 2);
    int n = a.i32(3);
    int ch = a.i32(4);
    float denom = a.f32(5);
    for (int t = 0; t < n; t++) {
      x.put(t, x.get(t) + (y.get(t) + b.get(t % ch)) / denom);
    }
  }

  static void gatedResidual(LaunchConfig c, KernelArgs a) {
    FloatBuffer x = f(a, 0);
    FloatBuffer y = f(a, 1);
    FloatBuffer by = f(a, 2);
    FloatBuffer g = f(a, 3);
    FloatBuffer bg = f(a, 4);
    int n = a.i32(5);
    int ch = a.i32(6);
    for (int t = 0; t < n; t++) {
      int k = t % ch;
      x.put(t, x.get(t) + (y.get(t) + by.get(k)) * sigmoid(g.get(t) + bg.get(k)));
    }
  }

  static void logits(LaunchConfig c, KernelArgs a) {
    float[] q = floats(a, 0);
    float[] k = floats(a, 1);
    boolean hasBias = a.i32(14) != 0;
    float[] bias = hasBias ? floats(a, 2) : null;
    FloatBuffer out = f(a, 3);
    int b0 = a.i32(4);
    int heads = a.i32(5);
    int nq = a.i32(6);
    int nk = a.i32(7);
    int dim = a.i32(8);
    int sb = a.i32(9);
    int st = a.i32(10);
    int bq = a.i32(11);
    int bk = a.i32(12);
    float scale = a.f32(13);
    int bh = c.grid().z();
    float[] row = new float[nk];
    for (int z = 0; z < bh; z++) {
      int h = z % heads;
      int base = (b0 + z / heads) * sb + h * dim;
      for (int i = 0; i < nq; i++) {
        int qb = base + i * st;
        for (int j = 0; j < nk; j++) {
          int kb = base + j * st;
          float acc = 0.0f;
          for (int d = 0; d < dim; d++) {
            acc = Math.fma(q[qb + d], k[kb + d], acc);
          }
          float v = acc * scale;
          if (hasBias) {
            v += bias[i * bq + j * bk + h];
          }
          row[j] = v;
        }
        out.put((z * nq + i) * nk, row);
      }
    }
  }

  static void softmax(LaunchConfig c, KernelArgs a) {
    FloatBuffer x = f(a, 0);
    int rows = a.i32(1);
    int n = a.i32(2);
    float[] lanes = new float[32];
    for (int row = 0; row < rows; row++) {
      int at = row * n;
      for (int l = 0; l < 32; l++) {
        float m = Float.NEGATIVE_INFINITY;
        for (int k = l; k < n; k += 32) {
          m = Math.max(m, x.get(at + k));
        }
        lanes[l] = m;
      }
      float m = warpMax(lanes);
      for (int l = 0; l < 32; l++) {
        float s = 0.0f;
        for (int k = l; k < n; k += 32) {
          float e = (float) Math.exp(x.get(at + k) - m);
          x.put(at + k, e);
          s += e;
        }
        lanes[l] = s;
      }
      float s = warpSum(lanes);
      for (int k = 0; k < n; k++) {
        x.put(at + k, x.get(at + k) / s);
      }
    }
  }

  static void attnOut(LaunchConfig c, KernelArgs a) {
    FloatBuffer p = f(a, 0);
    float[] v = floats(a, 1);
    FloatBuffer g = f(a, 2);
    FloatBuffer gb = f(a, 3);
    FloatBuffer o = f(a, 4);
    int b0 = a.i32(5);
    int heads = a.i32(6);
    int nq = a.i32(7);
    int nk = a.i32(8);
    int dim = a.i32(9);
    int sb = a.i32(10);
    int st = a.i32(11);
    int bh = c.grid().z();
    float[] acc = new float[dim];
    float[] w = new float[nk];
    for (int z = 0; z < bh; z++) {
      int h = z % heads;
      int base = (b0 + z / heads) * sb + h * dim;
      for (int i = 0; i < nq; i++) {
        Arrays.fill(acc, 0.0f);
        p.get((z * nq + i) * nk, w);
        for (int j = 0; j < nk; j++) {
          float wj = w[j];
          int vb = base + j * st;
          for (int d = 0; d < dim; d++) {
            acc[d] = Math.fma(wj, v[vb + d], acc[d]);
          }
        }
        int ob = base + i * st;
        for (int d = 0; d < dim; d++) {
          o.put(ob + d, acc[d] * sigmoid(g.get(ob + d) + gb.get(h * dim + d)));
        }
      }
    }
  }

  static void triMult(LaunchConfig c, KernelArgs a) {
    float[] x = floats(a, 0);
    float[] y = floats(a, 1);
    FloatBuffer out = f(a, 2);
    int r = a.i32(3);
    int ch = a.i32(4);
    int sxi = a.i32(5);
    int sxk = a.i32(6);
    int syj = a.i32(7);
    int syk = a.i32(8);
    float[] acc = new float[ch];
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        Arrays.fill(acc, 0.0f);
        for (int k = 0; k < r; k++) {
          int xb = i * sxi + k * sxk;
          int yb = j * syj + k * syk;
          for (int q = 0; q < ch; q++) {
            acc[q] = Math.fma(x[xb + q], y[yb + q], acc[q]);
          }
        }
        out.put((i * r + j) * ch, acc);
      }
    }
  }

  static void rearrange(LaunchConfig c, KernelArgs a) {
    FloatBuffer in = f(a, 0);
    FloatBuffer out = f(a, 1);
    int r = a.i32(2);
    int co = a.i32(3);
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        for (int cc = 0; cc < co; cc++) {
          for (int e = 0; e < co; e++) {
            out.put(((i * r + j) * co + cc) * co + e, in.get((j * co + e) * (r * co) + i * co + cc));
          }
        }
      }
    }
  }
}
