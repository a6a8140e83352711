package io.gitm.workloads.af2;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The Evoformer trunk's parameters under the names AlphaFold2 publishes them with ({@code params_model_N.npz}: Haiku
 * module path, {@code //}, parameter name), each a float32 array in C order. The blocks' parameters are stacked, as
 * Haiku's layer stack stores them: a leading dimension of {@code blocks}. Linear weights are {@code [in, out]}, the
 * attention projections {@code [in, heads, head_dim]} and their output {@code [heads, head_dim, out]}.
 *
 * <p>Either seeded random ({@link #seeded}: scaled so that activations stay of order one through many blocks; the
 * residual branches' output layers are small rather than AlphaFold's zero initialization, so that every operation
 * shows in the output), or read from a published parameter file ({@link #load}), whose architecture sizes are
 * taken from its shapes. Only the Evoformer trunk's parameters are read: the input embedder, the 48 blocks and the
 * single-representation projection; templates, the extra MSA stack, recycling and the heads are not part of this
 * workload.
 */
final class Weights {
  static final String EVOFORMER = "alphafold/alphafold_iteration/evoformer/";
  static final String BLOCK = EVOFORMER + "evoformer_iteration/";
  static final String ROW = "msa_row_attention_with_pair_bias";
  static final String COLUMN = "msa_column_attention";
  static final String MSA_TRANSITION = "msa_transition";
  static final String OUTER = "outer_product_mean";
  static final String TRI_OUT = "triangle_multiplication_outgoing";
  static final String TRI_IN = "triangle_multiplication_incoming";
  static final String TRI_START = "triangle_attention_starting_node";
  static final String TRI_END = "triangle_attention_ending_node";
  static final String PAIR_TRANSITION = "pair_transition";

  /** How a seeded parameter is drawn. */
  enum Init {
    /** Layer-norm scale: 1 + N(0, 0.1). */
    SCALE,
    /** Biases and layer-norm offsets: N(0, 0.1). */
    SMALL,
    /** Gate biases: 1 + N(0, 0.1) (AlphaFold initializes them to 1). */
    GATE_BIAS,
    /** N(0, 1 / fan_in). */
    LINEAR,
    /** N(0, 2 / fan_in), before a ReLU. */
    RELU,
    /** N(0, 0.3^2 / fan_in): a residual branch's output layer, and gate weights. */
    FINAL
  }

  /** One parameter: its name, its shape (with the block dimension first when stacked), its fan-in and its init. */
  record Spec(String name, int[] shape, boolean stacked, int fanIn, Init init) {
    long size() {
      long n = 1;
      for (int s : shape) {
        n *= s;
      }
      return n;
    }

    /** Elements of one block's slice. */
    int blockSize() {
      return (int) (stacked ? size() / shape[0] : size());
    }
  }

  private final Dims dims;
  private final Map<String, float[]> values;
  private final Map<String, Spec> specs = new LinkedHashMap<>();
  private final String source;

  private Weights(Dims dims, Map<String, float[]> values, String source) {
    this.dims = dims;
    this.values = values;
    this.source = source;
    for (Spec s : specs(dims)) {
      specs.put(s.name(), s);
    }
  }

  Dims dims() {
    return dims;
  }

  /** Where the parameters came from: {@code seeded N} or the file. */
  String source() {
    return source;
  }

  /** A non-stacked parameter's values (the embedder's and the final projection's). */
  float[] get(String name) {
    float[] v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("af2: no parameter '" + name + "'");
    }
    return v;
  }

  /** Block {@code b}'s slice of a stacked parameter, {@code module/param} under {@link #BLOCK}. */
  float[] block(String name, int b) {
    Spec s = specs.get(name);
    if (s == null) {
      throw new IllegalArgumentException("af2: no parameter '" + name + "' in the Evoformer trunk");
    }
    if (!s.stacked()) {
      throw new IllegalArgumentException("af2: parameter '" + name + "' is not stacked by block");
    }
    if (b < 0 || b >= dims.blocks()) {
      throw new IllegalArgumentException("af2: block " + b + " of " + dims.blocks());
    }
    int n = s.blockSize();
    return Arrays.copyOfRange(get(name), b * n, (b + 1) * n);
  }

  /** Every parameter of the trunk for {@code d}, embedder first, then the blocks' in Evoformer order. */
  static List<Spec> specs(Dims d) {
    List<Spec> out = new ArrayList<>();
    int cm = d.msaChannels();
    int cz = d.pairChannels();
    linear(out, EVOFORMER + "preprocess_1d", Af2Kernels.TARGET_FEATURES, cm, Init.LINEAR, false, 0);
    linear(out, EVOFORMER + "preprocess_msa", Af2Kernels.MSA_FEATURES, cm, Init.LINEAR, false, 0);
    linear(out, EVOFORMER + "left_single", Af2Kernels.TARGET_FEATURES, cz, Init.LINEAR, false, 0);
    linear(out, EVOFORMER + "right_single", Af2Kernels.TARGET_FEATURES, cz, Init.LINEAR, false, 0);
    linear(out, EVOFORMER + "pair_activiations", Dims.RELPOS_BINS, cz, Init.LINEAR, false, 0);
    int b = d.blocks();
    attention(out, BLOCK + ROW, cm, d.msaHeads(), d.msaHeadDim(), b);
    norm(out, BLOCK + ROW + "/feat_2d_norm", cz, b);
    out.add(new Spec(BLOCK + ROW + "//feat_2d_weights", new int[] {b, cz, d.msaHeads()}, true, cz, Init.LINEAR));
    attention(out, BLOCK + COLUMN, cm, d.msaHeads(), d.msaHeadDim(), b);
    transition(out, BLOCK + MSA_TRANSITION, cm, d.transitionFactor(), b);
    int co = d.outerChannels();
    norm(out, BLOCK + OUTER + "/layer_norm_input", cm, b);
    linear(out, BLOCK + OUTER + "/left_projection", cm, co, Init.LINEAR, true, b);
    linear(out, BLOCK + OUTER + "/right_projection", cm, co, Init.LINEAR, true, b);
    out.add(new Spec(BLOCK + OUTER + "//output_w", new int[] {b, co, co, cz}, true, co * co, Init.FINAL));
    out.add(new Spec(BLOCK + OUTER + "//output_b", new int[] {b, cz}, true, 1, Init.SMALL));
    triangleMultiplication(out, BLOCK + TRI_OUT, cz, d.triangleChannels(), b);
    triangleMultiplication(out, BLOCK + TRI_IN, cz, d.triangleChannels(), b);
    attention(out, BLOCK + TRI_START, cz, d.pairHeads(), d.pairHeadDim(), b);
    out.add(new Spec(BLOCK + TRI_START + "//feat_2d_weights", new int[] {b, cz, d.pairHeads()}, true, cz,
        Init.LINEAR));
    attention(out, BLOCK + TRI_END, cz, d.pairHeads(), d.pairHeadDim(), b);
    out.add(new Spec(BLOCK + TRI_END + "//feat_2d_weights", new int[] {b, cz, d.pairHeads()}, true, cz, Init.LINEAR));
    transition(out, BLOCK + PAIR_TRANSITION, cz, d.transitionFactor(), b);
    linear(out, EVOFORMER + "single_activations", cm, d.singleChannels(), Init.LINEAR, false, 0);
    return out;
  }

  private static int[] shape(boolean stacked, int blocks, int... dims) {
    if (!stacked) {
      return dims;
    }
    int[] s = new int[dims.length + 1];
    s[0] = blocks;
    System.arraycopy(dims, 0, s, 1, dims.length);
    return s;
  }

  private static void linear(List<Spec> out, String module, int in, int outCh, Init init, boolean stacked, int b) {
    out.add(new Spec(module + "//weights", shape(stacked, b, in, outCh), stacked, in, init));
    out.add(new Spec(module + "//bias", shape(stacked, b, outCh), stacked, 1,
        init == Init.FINAL && module.endsWith("gate") || module.endsWith("gating_linear") ? Init.GATE_BIAS
            : Init.SMALL));
  }

  private static void norm(List<Spec> out, String module, int c, int b) {
    out.add(new Spec(module + "//scale", shape(true, b, c), true, 1, Init.SCALE));
    out.add(new Spec(module + "//offset", shape(true, b, c), true, 1, Init.SMALL));
  }

  /** A gated attention module: its query norm and its projections. */
  private static void attention(List<Spec> out, String module, int c, int heads, int dim, int b) {
    norm(out, module + "/query_norm", c, b);
    String a = module + "/attention//";
    out.add(new Spec(a + "query_w", shape(true, b, c, heads, dim), true, c, Init.LINEAR));
    out.add(new Spec(a + "key_w", shape(true, b, c, heads, dim), true, c, Init.LINEAR));
    out.add(new Spec(a + "value_w", shape(true, b, c, heads, dim), true, c, Init.LINEAR));
    out.add(new Spec(a + "gating_w", shape(true, b, c, heads, dim), true, c, Init.FINAL));
    out.add(new Spec(a + "gating_b", shape(true, b, heads, dim), true, 1, Init.GATE_BIAS));
    out.add(new Spec(a + "output_w", shape(true, b, heads, dim, c), true, heads * dim, Init.FINAL));
    out.add(new Spec(a + "output_b", shape(true, b, c), true, 1, Init.SMALL));
  }

  private static void transition(List<Spec> out, String module, int c, int factor, int b) {
    norm(out, module + "/input_layer_norm", c, b);
    linear(out, module + "/transition1", c, factor * c, Init.RELU, true, b);
    linear(out, module + "/transition2", factor * c, c, Init.FINAL, true, b);
  }

  private static void triangleMultiplication(List<Spec> out, String module, int cz, int ct, int b) {
    norm(out, module + "/layer_norm_input", cz, b);
    linear(out, module + "/left_projection", cz, ct, Init.LINEAR, true, b);
    linear(out, module + "/right_projection", cz, ct, Init.LINEAR, true, b);
    linear(out, module + "/left_gate", cz, ct, Init.FINAL, true, b);
    linear(out, module + "/right_gate", cz, ct, Init.FINAL, true, b);
    norm(out, module + "/center_layer_norm", ct, b);
    linear(out, module + "/output_projection", ct, cz, Init.FINAL, true, b);
    linear(out, module + "/gating_linear", cz, cz, Init.FINAL, true, b);
  }

  /** Seeded random parameters for {@code d}: each parameter drawn from its own stream (its name and the seed). */
  static Weights seeded(Dims d, long seed) {
    Map<String, float[]> v = new LinkedHashMap<>();
    for (Spec s : specs(d)) {
      SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + fnv(s.name()));
      float[] x = new float[Math.toIntExact(s.size())];
      double sd = switch (s.init()) {
        case SCALE, SMALL, GATE_BIAS -> 0.1;
        case LINEAR -> 1 / Math.sqrt(s.fanIn());
        case RELU -> Math.sqrt(2.0 / s.fanIn());
        case FINAL -> 0.3 / Math.sqrt(s.fanIn());
      };
      double mean = s.init() == Init.SCALE || s.init() == Init.GATE_BIAS ? 1 : 0;
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) (mean + sd * rnd.nextGaussian());
      }
      v.put(s.name(), x);
    }
    return new Weights(d, v, "seeded " + seed);
  }

  private static long fnv(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    return h;
  }

  /**
   * The trunk's parameters from AlphaFold2's published parameter file (monomer: {@code params_model_1.npz} ..
   * {@code params_model_5_ptm.npz}); the architecture sizes are read from its shapes. Every parameter must be there
   * with the shape the sizes imply; the file's other arrays (templates, extra MSA stack, heads) are ignored.
   */
  static Weights load(Path npz) {
    try (Npz file = Npz.open(npz)) {
      Dims d = dimsOf(file, npz);
      Map<String, float[]> v = new LinkedHashMap<>();
      for (Spec s : specs(d)) {
        Npz.Array a = need(file, npz, s.name());
        if (!Arrays.equals(a.shape(), s.shape())) {
          throw new IllegalArgumentException(npz + ": parameter '" + s.name() + "' has shape "
              + Arrays.toString(a.shape()) + " but the architecture read from the file (" + d + ") needs "
              + Arrays.toString(s.shape()));
        }
        v.put(s.name(), a.data());
      }
      return new Weights(d, v, npz.toString());
    }
  }

  private static Npz.Array need(Npz file, Path npz, String name) {
    if (!file.has(name)) {
      throw new IllegalArgumentException(npz + " has no parameter '" + name + "': not an AlphaFold2 monomer"
          + " parameter file (params_model_N.npz; multimer files fuse the triangle projections)");
    }
    return file.read(name);
  }

  /** The architecture sizes implied by a parameter file's shapes. */
  private static Dims dimsOf(Npz file, Path npz) {
    int[] msa = need(file, npz, EVOFORMER + "preprocess_msa//weights").shape();
    int[] left = need(file, npz, EVOFORMER + "left_single//weights").shape();
    int[] query = need(file, npz, BLOCK + ROW + "/attention//query_w").shape();
    int[] tri = need(file, npz, BLOCK + TRI_START + "//feat_2d_weights").shape();
    int[] outer = need(file, npz, BLOCK + OUTER + "/left_projection//weights").shape();
    int[] mult = need(file, npz, BLOCK + TRI_OUT + "/left_projection//weights").shape();
    int[] trans = need(file, npz, BLOCK + MSA_TRANSITION + "/transition1//weights").shape();
    int[] single = need(file, npz, EVOFORMER + "single_activations//weights").shape();
    if (msa.length != 2 || left.length != 2 || query.length != 4 || tri.length != 3 || outer.length != 3
        || mult.length != 3 || trans.length != 3 || single.length != 2 || msa[1] == 0 || query[2] == 0
        || tri[2] == 0 || trans[2] % msa[1] != 0) {
      throw new IllegalArgumentException(npz + ": the embedder's and the first blocks' parameters are not shaped like"
          + " AlphaFold2's (preprocess_msa " + Arrays.toString(msa) + ", query_w " + Arrays.toString(query) + ")");
    }
    return new Dims(msa[1], left[1], query[0], query[2], tri[2], outer[2], mult[2], trans[2] / msa[1], single[1]);
  }

  /** Floats over all parameters. */
  long count() {
    return values.values().stream().mapToLong(a -> a.length).sum();
  }
}
