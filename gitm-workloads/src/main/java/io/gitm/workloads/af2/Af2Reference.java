package io.gitm.workloads.af2;

import static io.gitm.workloads.af2.Weights.BLOCK;
import static io.gitm.workloads.af2.Weights.EVOFORMER;

import java.util.Arrays;

/**
 * The Evoformer inference in plain Java, from the architecture's definitions (AlphaFold2 supplement, Algorithms 3-15)
 * rather than from the kernels: tensors as nested arrays, every sum accumulated in double, the ending-node attention
 * computed on an explicitly transposed pair representation. For small sizes: it is cubic in the residues with no
 * blocking. Its output is what the device's output is checked against.
 */
final class Af2Reference {
  private final Weights w;
  private final Dims d;
  private final int nRes;
  private final int nSeq;
  private float[][][] m;
  private float[][][] z;

  /** The single representation [N_res][c_s] and the pair representation [N_res][N_res][c_z], flattened. */
  record Output(float[] single, float[] pair) {
  }

  private Af2Reference(Weights w, Features f) {
    this.w = w;
    this.d = w.dims();
    this.nRes = f.nRes();
    this.nSeq = f.nSeq();
  }

  static Output run(Weights w, Features f) {
    Af2Reference r = new Af2Reference(w, f);
    r.embed(f);
    for (int b = 0; b < r.d.blocks(); b++) {
      r.block(b);
    }
    return r.output();
  }

  // ------------------------------------------------------------------------------------------------- helpers

  /** {@code x W + bias}: x [rows][in], W [in][out] row-major (bias may be null). */
  private static float[] linear(float[] x, int in, float[] weights, float[] bias, int out) {
    int rows = x.length / in;
    float[] y = new float[rows * out];
    for (int r = 0; r < rows; r++) {
      for (int o = 0; o < out; o++) {
        double s = 0;
        for (int i = 0; i < in; i++) {
          s += (double) x[r * in + i] * weights[i * out + o];
        }
        y[r * out + o] = (float) (bias == null ? s : (float) s + bias[o]);
      }
    }
    return y;
  }

  private static float[] layerNorm(float[] x, int c, float[] scale, float[] offset) {
    float[] y = new float[x.length];
    for (int r = 0; r < x.length / c; r++) {
      double mean = 0;
      for (int k = 0; k < c; k++) {
        mean += x[r * c + k];
      }
      mean /= c;
      double var = 0;
      for (int k = 0; k < c; k++) {
        double t = x[r * c + k] - mean;
        var += t * t;
      }
      var /= c;
      double inv = 1 / Math.sqrt(var + Af2Kernels.LN_EPS);
      for (int k = 0; k < c; k++) {
        y[r * c + k] = (float) ((x[r * c + k] - mean) * inv * scale[k] + offset[k]);
      }
    }
    return y;
  }

  private static double sigmoid(double x) {
    return 1 / (1 + Math.exp(-x));
  }

  private static float[] flat(float[][][] t) {
    int a = t.length;
    int b = t[0].length;
    int c = t[0][0].length;
    float[] out = new float[a * b * c];
    for (int i = 0; i < a; i++) {
      for (int j = 0; j < b; j++) {
        System.arraycopy(t[i][j], 0, out, (i * b + j) * c, c);
      }
    }
    return out;
  }

  private static float[][][] cube(float[] flat, int a, int b, int c) {
    float[][][] t = new float[a][b][c];
    for (int i = 0; i < a; i++) {
      for (int j = 0; j < b; j++) {
        System.arraycopy(flat, (i * b + j) * c, t[i][j], 0, c);
      }
    }
    return t;
  }

  private static void add(float[][][] x, float[][][] update) {
    for (int i = 0; i < x.length; i++) {
      for (int j = 0; j < x[i].length; j++) {
        for (int k = 0; k < x[i][j].length; k++) {
          x[i][j][k] += update[i][j][k];
        }
      }
    }
  }

  private float[] p(String name, int b) {
    return w.block(name, b);
  }

  // ------------------------------------------------------------------------------------------------ embedding

  private void embed(Features f) {
    int cm = d.msaChannels();
    int cz = d.pairChannels();
    float[] target = new float[nRes * Af2Kernels.TARGET_FEATURES];
    for (int r = 0; r < nRes; r++) {
      target[r * Af2Kernels.TARGET_FEATURES + 1 + f.aatype()[r]] = 1;
    }
    float[] msaFeat = new float[nSeq * nRes * Af2Kernels.MSA_FEATURES];
    for (int t = 0; t < nSeq * nRes; t++) {
      int at = t * Af2Kernels.MSA_FEATURES;
      int del = f.deletions()[t];
      float value = (float) (Math.atan(del / 3.0) * 2 / Math.PI);
      msaFeat[at + f.msa()[t]] = 1;
      msaFeat[at + 23] = del > 0 ? 1 : 0;
      msaFeat[at + 24] = value;
      msaFeat[at + 25 + f.msa()[t]] = 1;
      msaFeat[at + 48] = value;
    }
    float[] m1d = linear(target, Af2Kernels.TARGET_FEATURES, w.get(EVOFORMER + "preprocess_1d//weights"),
        w.get(EVOFORMER + "preprocess_1d//bias"), cm);
    float[] mMsa = linear(msaFeat, Af2Kernels.MSA_FEATURES, w.get(EVOFORMER + "preprocess_msa//weights"),
        w.get(EVOFORMER + "preprocess_msa//bias"), cm);
    m = new float[nSeq][nRes][cm];
    for (int s = 0; s < nSeq; s++) {
      for (int r = 0; r < nRes; r++) {
        for (int c = 0; c < cm; c++) {
          m[s][r][c] = m1d[r * cm + c] + mMsa[(s * nRes + r) * cm + c];
        }
      }
    }
    float[] left = linear(target, Af2Kernels.TARGET_FEATURES, w.get(EVOFORMER + "left_single//weights"),
        w.get(EVOFORMER + "left_single//bias"), cz);
    float[] right = linear(target, Af2Kernels.TARGET_FEATURES, w.get(EVOFORMER + "right_single//weights"),
        w.get(EVOFORMER + "right_single//bias"), cz);
    float[] rel = w.get(EVOFORMER + "pair_activiations//weights");
    float[] relBias = w.get(EVOFORMER + "pair_activiations//bias");
    z = new float[nRes][nRes][cz];
    for (int i = 0; i < nRes; i++) {
      for (int j = 0; j < nRes; j++) {
        int bin = Math.clamp(i - j + Dims.MAX_RELATIVE, 0, 2 * Dims.MAX_RELATIVE);
        for (int c = 0; c < cz; c++) {
          z[i][j][c] = (left[i * cz + c] + right[j * cz + c]) + (rel[bin * cz + c] + relBias[c]);
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------- block

  private void block(int b) {
    int cm = d.msaChannels();
    int cz = d.pairChannels();
    add(m, rowAttention(b));
    add(m, columnAttention(b));
    m = cube(transition(flat(m), cm, BLOCK + Weights.MSA_TRANSITION, b), nSeq, nRes, cm);
    add(z, outerProductMean(b));
    add(z, triangleMultiplication(b, true));
    add(z, triangleMultiplication(b, false));
    add(z, triangleAttention(z, b, BLOCK + Weights.TRI_START));
    float[][][] zt = transpose(z);
    add(z, transpose(triangleAttention(zt, b, BLOCK + Weights.TRI_END)));
    z = cube(transition(flat(z), cz, BLOCK + Weights.PAIR_TRANSITION, b), nRes, nRes, cz);
  }

  private static float[][][] transpose(float[][][] t) {
    float[][][] out = new float[t[0].length][t.length][];
    for (int i = 0; i < t.length; i++) {
      for (int j = 0; j < t[i].length; j++) {
        out[j][i] = t[i][j].clone();
      }
    }
    return out;
  }

  /**
   * Gated attention of every batch row of {@code x} [batch][n][c] over its own n entries: queries, keys, values and
   * gates projected from x, logits scaled by 1/sqrt(head dim) plus {@code bias[h][query][key]} when given; returns
   * the output projection of the gated weighted values, [batch][n][c].
   */
  private float[][][] attention(float[][][] x, String att, int b, int heads, float[][][] bias) {
    int nb = x.length;
    int n = x[0].length;
    int c = x[0][0].length;
    int dim = c / heads;
    float[] flatX = flat(x);
    float[] q = linear(flatX, c, p(att + "query_w", b), null, heads * dim);
    float[] k = linear(flatX, c, p(att + "key_w", b), null, heads * dim);
    float[] v = linear(flatX, c, p(att + "value_w", b), null, heads * dim);
    float[] g = linear(flatX, c, p(att + "gating_w", b), null, heads * dim);
    float[] gb = p(att + "gating_b", b);
    float[] o = new float[nb * n * heads * dim];
    double scale = 1 / Math.sqrt(dim);
    double[] logit = new double[n];
    for (int bb = 0; bb < nb; bb++) {
      for (int h = 0; h < heads; h++) {
        for (int i = 0; i < n; i++) {
          int qi = ((bb * n + i) * heads + h) * dim;
          double max = Double.NEGATIVE_INFINITY;
          for (int j = 0; j < n; j++) {
            int kj = ((bb * n + j) * heads + h) * dim;
            double s = 0;
            for (int e = 0; e < dim; e++) {
              s += (double) q[qi + e] * k[kj + e];
            }
            logit[j] = s * scale + (bias == null ? 0 : bias[h][i][j]);
            max = Math.max(max, logit[j]);
          }
          double sum = 0;
          for (int j = 0; j < n; j++) {
            logit[j] = Math.exp(logit[j] - max);
            sum += logit[j];
          }
          for (int e = 0; e < dim; e++) {
            double acc = 0;
            for (int j = 0; j < n; j++) {
              acc += logit[j] / sum * v[((bb * n + j) * heads + h) * dim + e];
            }
            o[qi + e] = (float) (acc * sigmoid(g[qi + e] + gb[h * dim + e]));
          }
        }
      }
    }
    return cube(linear(o, heads * dim, p(att + "output_w", b), p(att + "output_b", b), c), nb, n, c);
  }

  /** {@code bias[h][q][k]} = the layer-normed pair entry (q, k) times the module's feat_2d_weights. */
  private float[][][] pairBias(float[][][] pair, String normModule, String weights, int b, int heads) {
    int cz = d.pairChannels();
    float[] ln = layerNorm(flat(pair), cz, p(normModule + "//scale", b), p(normModule + "//offset", b));
    float[] proj = linear(ln, cz, p(weights, b), null, heads);
    float[][][] bias = new float[heads][nRes][nRes];
    for (int i = 0; i < nRes; i++) {
      for (int j = 0; j < nRes; j++) {
        for (int h = 0; h < heads; h++) {
          bias[h][i][j] = proj[(i * nRes + j) * heads + h];
        }
      }
    }
    return bias;
  }

  private float[][][] rowAttention(int b) {
    String mod = BLOCK + Weights.ROW;
    int cm = d.msaChannels();
    float[][][] bias = pairBias(z, mod + "/feat_2d_norm", mod + "//feat_2d_weights", b, d.msaHeads());
    float[][][] x = cube(layerNorm(flat(m), cm, p(mod + "/query_norm//scale", b), p(mod + "/query_norm//offset", b)),
        nSeq, nRes, cm);
    return attention(x, mod + "/attention//", b, d.msaHeads(), bias);
  }

  private float[][][] columnAttention(int b) {
    String mod = BLOCK + Weights.COLUMN;
    int cm = d.msaChannels();
    float[][][] x = cube(layerNorm(flat(m), cm, p(mod + "/query_norm//scale", b), p(mod + "/query_norm//offset", b)),
        nSeq, nRes, cm);
    return transpose(attention(transpose(x), mod + "/attention//", b, d.msaHeads(), null));
  }

  /** x + transition(x), flattened rows of c. */
  private float[] transition(float[] x, int c, String mod, int b) {
    int wide = d.transitionFactor() * c;
    float[] ln = layerNorm(x, c, p(mod + "/input_layer_norm//scale", b), p(mod + "/input_layer_norm//offset", b));
    float[] hidden = linear(ln, c, p(mod + "/transition1//weights", b), p(mod + "/transition1//bias", b), wide);
    for (int i = 0; i < hidden.length; i++) {
      hidden[i] = Math.max(0, hidden[i]);
    }
    float[] y = linear(hidden, wide, p(mod + "/transition2//weights", b), p(mod + "/transition2//bias", b), c);
    float[] out = x.clone();
    for (int i = 0; i < out.length; i++) {
      out[i] += y[i];
    }
    return out;
  }

  private float[][][] outerProductMean(int b) {
    String mod = BLOCK + Weights.OUTER;
    int cm = d.msaChannels();
    int cz = d.pairChannels();
    int co = d.outerChannels();
    float[] ln = layerNorm(flat(m), cm, p(mod + "/layer_norm_input//scale", b),
        p(mod + "/layer_norm_input//offset", b));
    float[] a = linear(ln, cm, p(mod + "/left_projection//weights", b), p(mod + "/left_projection//bias", b), co);
    float[] bb = linear(ln, cm, p(mod + "/right_projection//weights", b), p(mod + "/right_projection//bias", b), co);
    float[] outW = p(mod + "//output_w", b);
    float[] outB = p(mod + "//output_b", b);
    double norm = nSeq + 1e-3;
    float[][][] update = new float[nRes][nRes][cz];
    double[] outer = new double[co * co];
    for (int i = 0; i < nRes; i++) {
      for (int j = 0; j < nRes; j++) {
        Arrays.fill(outer, 0);
        for (int s = 0; s < nSeq; s++) {
          for (int c = 0; c < co; c++) {
            double left = a[(s * nRes + i) * co + c];
            for (int e = 0; e < co; e++) {
              outer[c * co + e] += left * bb[(s * nRes + j) * co + e];
            }
          }
        }
        for (int f = 0; f < cz; f++) {
          double y = 0;
          for (int ce = 0; ce < co * co; ce++) {
            y += outer[ce] * outW[ce * cz + f];
          }
          update[i][j][f] = (float) ((y + outB[f]) / norm);
        }
      }
    }
    return update;
  }

  private float[][][] triangleMultiplication(int b, boolean outgoing) {
    String mod = BLOCK + (outgoing ? Weights.TRI_OUT : Weights.TRI_IN);
    int cz = d.pairChannels();
    int ct = d.triangleChannels();
    float[] x = layerNorm(flat(z), cz, p(mod + "/layer_norm_input//scale", b), p(mod + "/layer_norm_input//offset", b));
    float[][] sides = new float[2][];
    for (int s = 0; s < 2; s++) {
      String side = mod + (s == 0 ? "/left" : "/right");
      float[] proj = linear(x, cz, p(side + "_projection//weights", b), p(side + "_projection//bias", b), ct);
      float[] gate = linear(x, cz, p(side + "_gate//weights", b), p(side + "_gate//bias", b), ct);
      for (int i = 0; i < proj.length; i++) {
        proj[i] = (float) (proj[i] * sigmoid(gate[i]));
      }
      sides[s] = proj;
    }
    float[] left = sides[0];
    float[] right = sides[1];
    float[] product = new float[nRes * nRes * ct];
    for (int i = 0; i < nRes; i++) {
      for (int j = 0; j < nRes; j++) {
        for (int c = 0; c < ct; c++) {
          double s = 0;
          for (int k = 0; k < nRes; k++) {
            s += outgoing
                ? (double) left[(i * nRes + k) * ct + c] * right[(j * nRes + k) * ct + c]
                : (double) left[(k * nRes + j) * ct + c] * right[(k * nRes + i) * ct + c];
          }
          product[(i * nRes + j) * ct + c] = (float) s;
        }
      }
    }
    float[] center = layerNorm(product, ct, p(mod + "/center_layer_norm//scale", b),
        p(mod + "/center_layer_norm//offset", b));
    float[] y = linear(center, ct, p(mod + "/output_projection//weights", b), p(mod + "/output_projection//bias", b),
        cz);
    float[] g = linear(x, cz, p(mod + "/gating_linear//weights", b), p(mod + "/gating_linear//bias", b), cz);
    for (int i = 0; i < y.length; i++) {
      y[i] = (float) (y[i] * sigmoid(g[i]));
    }
    return cube(y, nRes, nRes, cz);
  }

  /** Triangle attention around the starting node of {@code pair} (the ending node: called on the transpose). */
  private float[][][] triangleAttention(float[][][] pair, int b, String mod) {
    int cz = d.pairChannels();
    float[][][] bias = pairBias(pair, mod + "/query_norm", mod + "//feat_2d_weights", b, d.pairHeads());
    float[][][] x = cube(layerNorm(flat(pair), cz, p(mod + "/query_norm//scale", b),
        p(mod + "/query_norm//offset", b)), nRes, nRes, cz);
    return attention(x, mod + "/attention//", b, d.pairHeads(), bias);
  }

  // ---------------------------------------------------------------------------------------------------- output

  private Output output() {
    int cm = d.msaChannels();
    float[] first = new float[nRes * cm];
    for (int r = 0; r < nRes; r++) {
      System.arraycopy(m[0][r], 0, first, r * cm, cm);
    }
    float[] single = linear(first, cm, w.get(EVOFORMER + "single_activations//weights"),
        w.get(EVOFORMER + "single_activations//bias"), d.singleChannels());
    return new Output(single, flat(z));
  }
}
