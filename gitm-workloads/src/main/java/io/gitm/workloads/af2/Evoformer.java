package io.gitm.workloads.af2;

import static io.gitm.workloads.af2.Weights.BLOCK;
import static io.gitm.workloads.af2.Weights.EVOFORMER;

import io.gitm.device.KernelDef;
import io.gitm.workloads.af2.Program.Buf;

/**
 * Builds the {@link Program} of one inference: the input embedder, {@code blocks} Evoformer blocks and the single
 * representation, with AlphaFold2's operations and shapes (supplement, Algorithms 3-15; {@code docs/af2.md}):
 *
 * <ol>
 *   <li>MSA row-wise gated self-attention with pair bias, MSA column-wise gated self-attention, MSA transition;
 *   <li>outer product mean (MSA to pair);
 *   <li>triangular multiplicative update, outgoing then incoming edges;
 *   <li>triangular self-attention around the starting node, then the ending node; pair transition.
 * </ol>
 *
 * Linear layers are GEMMs; layer norms, attention, the triangle products and every epilogue are the kernels of
 * {@link Af2Kernels}. Within an operation, projections that do not depend on each other are forked into lanes (the
 * queries and keys, the values and gates, the pair bias; the left and right triangle projections and the output
 * gate). With {@code chunk > 0} every attention is computed {@code chunk} batch rows at a time (AlphaFold's
 * inference subbatching: the logits of one chunk live at a time); otherwise all rows at once.
 */
final class Evoformer {
  private final Program p = new Program();
  private final Dims d;
  private final Weights w;
  private final int nRes;
  private final int nSeq;
  private final int chunk;
  private final Buf msa;
  private final Buf deletions;
  private final Buf aatype;
  private final Buf m;
  private final Buf z;
  private final Buf single;

  /**
   * @param chunk batch rows per attention launch (0: all at once)
   */
  Evoformer(Weights weights, int nRes, int nSeq, int chunk) {
    this.w = weights;
    this.d = weights.dims();
    this.nRes = nRes;
    this.nSeq = nSeq;
    this.chunk = chunk;
    if (nRes < 1 || nSeq < 1 || chunk < 0) {
      throw new IllegalArgumentException("af2: " + nSeq + " sequences of " + nRes + " residues, chunk " + chunk);
    }
    msa = p.state("msa", 4L * nSeq * nRes);
    deletions = p.state("deletions", 4L * nSeq * nRes);
    aatype = p.state("aatype", 4L * nRes);
    m = p.state("m", 4L * nSeq * nRes * d.msaChannels());
    z = p.state("z", 4L * nRes * nRes * d.pairChannels());
    single = p.state("single", 4L * nRes * d.singleChannels());
    embed();
    for (int b = 0; b < d.blocks(); b++) {
      rowAttention(b);
      columnAttention(b);
      transition("msa_transition", m, (long) nSeq * nRes, d.msaChannels(), BLOCK + Weights.MSA_TRANSITION, b);
      outerProductMean(b);
      triangleMultiplication(b, true);
      triangleMultiplication(b, false);
      triangleAttention(b, true);
      triangleAttention(b, false);
      transition("pair_transition", z, (long) nRes * nRes, d.pairChannels(), BLOCK + Weights.PAIR_TRANSITION, b);
    }
    p.gemm(false, false, d.singleChannels(), nRes, d.msaChannels(), param(EVOFORMER + "single_activations//weights"),
        d.singleChannels(), m, d.msaChannels(), single, d.singleChannels());
    biasAct(single, (long) nRes * d.singleChannels(), d.singleChannels(), param(EVOFORMER + "single_activations//bias"),
        false);
    if (!p.live().isEmpty()) {
      throw new IllegalStateException("af2: temporaries left live: " + p.live());
    }
  }

  Program program() {
    return p;
  }

  Buf msa() {
    return msa;
  }

  Buf deletions() {
    return deletions;
  }

  Buf aatype() {
    return aatype;
  }

  /** The single representation {@code [N_res][c_s]} after the last block. */
  Buf single() {
    return single;
  }

  /** The pair representation {@code [N_res][N_res][c_z]} after the last block. */
  Buf pair() {
    return z;
  }

  // ----------------------------------------------------------------------------------------------- parameters

  private Buf param(String name) {
    return p.param(name, w.get(name));
  }

  private Buf param(String name, int block) {
    return p.param(name + "#" + block, w.block(name, block));
  }

  // ------------------------------------------------------------------------------------------------ primitives

  private void launch(String entry, io.gitm.device.LaunchConfig launch, Object... args) {
    KernelDef k = Af2Kernels.MODULE.kernel(entry).orElseThrow();
    p.launch(k, launch, args);
  }

  private static int n(long v) {
    if (v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("af2: a tensor of " + v + " elements is above 2^31 - 1");
    }
    return (int) v;
  }

  /** {@code y[rows][out] = x[rows][in] W[in][out]} (no bias), into a new temporary. */
  private Buf linear(String tag, Buf x, long rows, int in, Buf weights, int out) {
    Buf y = p.temp(tag, rows * out);
    p.gemm(false, false, out, n(rows), in, weights, out, x, in, y, out);
    return y;
  }

  private Buf layerNorm(String tag, Buf x, long rows, int c, String module, int block) {
    Buf y = p.temp(tag, rows * c);
    launch(Af2Kernels.LAYER_NORM, Af2Kernels.perRow(rows), x, param(module + "//scale", block),
        param(module + "//offset", block), y, n(rows), c);
    return y;
  }

  private void biasAct(Buf y, long count, int c, Buf bias, boolean relu) {
    launch(Af2Kernels.BIAS_ACT, Af2Kernels.elementwise(count), y, bias, n(count), c, relu ? 1 : 0);
  }

  private void residual(Buf x, Buf y, Buf bias, long count, int c, float denom) {
    launch(Af2Kernels.RESIDUAL, Af2Kernels.elementwise(count), x, y, bias, n(count), c, denom);
  }

  // ------------------------------------------------------------------------------------------------ embedding

  /** Input embedder (Algorithm 3) with the relative position encoding (Algorithm 4). */
  private void embed() {
    int cm = d.msaChannels();
    int cz = d.pairChannels();
    long sr = (long) nSeq * nRes;
    long rr = (long) nRes * nRes;
    p.fork(3);
    p.lane(0);
    Buf feat = p.temp("embed.msa_feat", sr * Af2Kernels.MSA_FEATURES);
    launch(Af2Kernels.MSA_FEAT, Af2Kernels.elementwise(sr), msa, deletions, feat, n(sr));
    Buf pm = linear("embed.preprocess_msa", feat, sr, Af2Kernels.MSA_FEATURES,
        param(EVOFORMER + "preprocess_msa//weights"), cm);
    p.free(feat);
    p.lane(1);
    Buf tf = p.temp("embed.target_feat", (long) nRes * Af2Kernels.TARGET_FEATURES);
    launch(Af2Kernels.TARGET_FEAT, Af2Kernels.elementwise(nRes), aatype, tf, nRes);
    Buf p1 = linear("embed.preprocess_1d", tf, nRes, Af2Kernels.TARGET_FEATURES,
        param(EVOFORMER + "preprocess_1d//weights"), cm);
    Buf left = linear("embed.left_single", tf, nRes, Af2Kernels.TARGET_FEATURES,
        param(EVOFORMER + "left_single//weights"), cz);
    Buf right = linear("embed.right_single", tf, nRes, Af2Kernels.TARGET_FEATURES,
        param(EVOFORMER + "right_single//weights"), cz);
    p.free(tf);
    p.lane(2);
    Buf rel = p.temp("embed.relpos", rr * Dims.RELPOS_BINS);
    launch(Af2Kernels.RELPOS, Af2Kernels.elementwise(rr), rel, nRes, Dims.MAX_RELATIVE);
    Buf pr = linear("embed.pair_activations", rel, rr, Dims.RELPOS_BINS,
        param(EVOFORMER + "pair_activiations//weights"), cz);
    p.free(rel);
    p.join();
    launch(Af2Kernels.MSA_INIT, Af2Kernels.elementwise(sr * cm), m, pm, param(EVOFORMER + "preprocess_msa//bias"), p1,
        param(EVOFORMER + "preprocess_1d//bias"), nSeq, nRes, cm);
    p.free(pm, p1);
    launch(Af2Kernels.PAIR_INIT, Af2Kernels.elementwise(rr * cz), z, left, param(EVOFORMER + "left_single//bias"),
        right, param(EVOFORMER + "right_single//bias"), pr, param(EVOFORMER + "pair_activiations//bias"), nRes, cz);
    p.free(left, right, pr);
  }

  // ------------------------------------------------------------------------------------------------ attention

  /**
   * Gated multi-head attention (AlphaFold2's Attention module) over {@code nb} batch rows of {@code nq} queries and
   * {@code nk} keys, element (b, t, h, d) at {@code b sb + t st + h D + d}; the bias of (query i, key j, head h) at
   * {@code i bq + j bk + h} when given. Returns the gated weighted values, laid out like the queries.
   */
  private Buf attention(String tag, Buf q, Buf k, Buf v, Buf g, Buf gatingBias, Buf bias, int nb, int nq, int nk,
      int heads, int dim, int sb, int st, int bq, int bk) {
    Buf o = p.temp(tag + ".weighted", (long) nb * nq * heads * dim);
    int rows = chunk > 0 ? Math.min(chunk, nb) : nb;
    if ((long) rows * heads > 65535) {
      throw new IllegalArgumentException("af2: " + tag + " would launch " + rows + " x " + heads + " heads in one grid"
          + " (at most 65535): use the chunked attention variant");
    }
    Buf logits = p.temp(tag + ".logits", (long) rows * heads * nq * nk);
    float scale = (float) (1 / Math.sqrt(dim));
    for (int b0 = 0; b0 < nb; b0 += rows) {
      int cb = Math.min(rows, nb - b0);
      launch(Af2Kernels.ATTN_LOGITS, Af2Kernels.logitsLaunch(cb, heads, nq, nk, dim), q, k, bias == null ? q : bias,
          logits, b0, heads, nq, nk, dim, sb, st, bq, bk, scale, bias == null ? 0 : 1);
      launch(Af2Kernels.SOFTMAX, Af2Kernels.perRow((long) cb * heads * nq), logits, cb * heads * nq, nk);
      launch(Af2Kernels.ATTN_OUT, Af2Kernels.attnOutLaunch(cb, heads, nq, dim), logits, v, g, gatingBias, o, b0, heads,
          nq, nk, dim, sb, st);
    }
    p.free(logits);
    return o;
  }

  /** The query, key, value and gate projections of {@code x}, in two lanes (a third holds {@code third}). */
  private Buf[] projections(String tag, String att, Buf x, long rows, int c, int hd, int b, Runnable third) {
    p.fork(third == null ? 2 : 3);
    p.lane(0);
    Buf q = linear(tag + ".q", x, rows, c, param(att + "query_w", b), hd);
    Buf k = linear(tag + ".k", x, rows, c, param(att + "key_w", b), hd);
    p.lane(1);
    Buf v = linear(tag + ".v", x, rows, c, param(att + "value_w", b), hd);
    Buf g = linear(tag + ".g", x, rows, c, param(att + "gating_w", b), hd);
    if (third != null) {
      p.lane(2);
      third.run();
    }
    p.join();
    return new Buf[] {q, k, v, g};
  }

  /** MSA row-wise gated self-attention with pair bias (Algorithm 7). */
  private void rowAttention(int b) {
    String mod = BLOCK + Weights.ROW;
    String att = mod + "/attention//";
    int cm = d.msaChannels();
    int cz = d.pairChannels();
    int h = d.msaHeads();
    int dim = d.msaHeadDim();
    long sr = (long) nSeq * nRes;
    long rr = (long) nRes * nRes;
    Buf ln = layerNorm("row.query_norm", m, sr, cm, mod + "/query_norm", b);
    Buf[] bias = new Buf[1];
    Buf[] qkvg = projections("row", att, ln, sr, cm, h * dim, b, () -> {
      Buf lnz = layerNorm("row.feat_2d_norm", z, rr, cz, mod + "/feat_2d_norm", b);
      bias[0] = linear("row.bias", lnz, rr, cz, param(mod + "//feat_2d_weights", b), h);
      p.free(lnz);
    });
    p.free(ln);
    Buf o = attention("row", qkvg[0], qkvg[1], qkvg[2], qkvg[3], param(att + "gating_b", b), bias[0], nSeq, nRes, nRes,
        h, dim, nRes * h * dim, h * dim, nRes * h, h);
    p.free(qkvg);
    p.free(bias[0]);
    Buf y = linear("row.output", o, sr, h * dim, param(att + "output_w", b), cm);
    p.free(o);
    residual(m, y, param(att + "output_b", b), sr * cm, cm, 1.0f);
    p.free(y);
  }

  /** MSA column-wise gated self-attention (Algorithm 8): the rows are residues, attending over sequences. */
  private void columnAttention(int b) {
    String mod = BLOCK + Weights.COLUMN;
    String att = mod + "/attention//";
    int cm = d.msaChannels();
    int h = d.msaHeads();
    int dim = d.msaHeadDim();
    long sr = (long) nSeq * nRes;
    Buf ln = layerNorm("column.query_norm", m, sr, cm, mod + "/query_norm", b);
    Buf[] qkvg = projections("column", att, ln, sr, cm, h * dim, b, null);
    p.free(ln);
    Buf o = attention("column", qkvg[0], qkvg[1], qkvg[2], qkvg[3], param(att + "gating_b", b), null, nRes, nSeq, nSeq,
        h, dim, h * dim, nRes * h * dim, 0, 0);
    p.free(qkvg);
    Buf y = linear("column.output", o, sr, h * dim, param(att + "output_w", b), cm);
    p.free(o);
    residual(m, y, param(att + "output_b", b), sr * cm, cm, 1.0f);
    p.free(y);
  }

  /** MSA or pair transition (Algorithms 9, 15): layer norm, linear to n c with ReLU, linear back, residual. */
  private void transition(String tag, Buf x, long rows, int c, String mod, int b) {
    int wide = d.transitionFactor() * c;
    Buf ln = layerNorm(tag + ".input_layer_norm", x, rows, c, mod + "/input_layer_norm", b);
    Buf hidden = linear(tag + ".transition1", ln, rows, c, param(mod + "/transition1//weights", b), wide);
    p.free(ln);
    biasAct(hidden, rows * wide, wide, param(mod + "/transition1//bias", b), true);
    Buf y = linear(tag + ".transition2", hidden, rows, wide, param(mod + "/transition2//weights", b), c);
    p.free(hidden);
    residual(x, y, param(mod + "/transition2//bias", b), rows * c, c, 1.0f);
    p.free(y);
  }

  /**
   * Outer product mean (Algorithm 10): the outer products of the left and right projections summed over sequences
   * (one GEMM of (N_res c) x (N_res c) x N_seq), projected to c_z, plus the bias, over N_seq + 0.001.
   */
  private void outerProductMean(int b) {
    String mod = BLOCK + Weights.OUTER;
    int cm = d.msaChannels();
    int cz = d.pairChannels();
    int co = d.outerChannels();
    long sr = (long) nSeq * nRes;
    long rr = (long) nRes * nRes;
    Buf ln = layerNorm("outer.layer_norm_input", m, sr, cm, mod + "/layer_norm_input", b);
    p.fork(2);
    p.lane(0);
    Buf left = linear("outer.left", ln, sr, cm, param(mod + "/left_projection//weights", b), co);
    biasAct(left, sr * co, co, param(mod + "/left_projection//bias", b), false);
    p.lane(1);
    Buf right = linear("outer.right", ln, sr, cm, param(mod + "/right_projection//weights", b), co);
    biasAct(right, sr * co, co, param(mod + "/right_projection//bias", b), false);
    p.join();
    p.free(ln);
    int rc = n((long) nRes * co);
    Buf outer = p.temp("outer.products", (long) rc * rc);
    p.gemm(false, true, rc, rc, nSeq, left, rc, right, rc, outer, rc);
    p.free(left, right);
    Buf rows = p.temp("outer.rows", (long) rc * rc);
    launch(Af2Kernels.OPM_REARRANGE, Af2Kernels.elementwise((long) rc * rc), outer, rows, nRes, co);
    p.free(outer);
    Buf y = linear("outer.output", rows, rr, co * co, param(mod + "//output_w", b), cz);
    p.free(rows);
    residual(z, y, param(mod + "//output_b", b), rr * cz, cz, (float) nSeq + 1e-3f);
    p.free(y);
  }

  /** Triangular multiplicative update using outgoing (Algorithm 11) or incoming (Algorithm 12) edges. */
  private void triangleMultiplication(int b, boolean outgoing) {
    String mod = BLOCK + (outgoing ? Weights.TRI_OUT : Weights.TRI_IN);
    String tag = outgoing ? "tri_out" : "tri_in";
    int cz = d.pairChannels();
    int ct = d.triangleChannels();
    long rr = (long) nRes * nRes;
    Buf ln = layerNorm(tag + ".layer_norm_input", z, rr, cz, mod + "/layer_norm_input", b);
    p.fork(3);
    Buf[] sides = new Buf[2];
    for (int s = 0; s < 2; s++) {
      p.lane(s);
      String side = s == 0 ? "left" : "right";
      Buf proj = linear(tag + "." + side + "_projection", ln, rr, cz, param(mod + "/" + side + "_projection//weights",
          b), ct);
      Buf gate = linear(tag + "." + side + "_gate", ln, rr, cz, param(mod + "/" + side + "_gate//weights", b), ct);
      sides[s] = p.temp(tag + "." + side, rr * ct);
      launch(Af2Kernels.GATE_MUL, Af2Kernels.elementwise(rr * ct), proj, param(mod + "/" + side + "_projection//bias",
          b), gate, param(mod + "/" + side + "_gate//bias", b), sides[s], n(rr * ct), ct);
      p.free(proj, gate);
    }
    p.lane(2);
    Buf gating = linear(tag + ".gating_linear", ln, rr, cz, param(mod + "/gating_linear//weights", b), cz);
    p.join();
    p.free(ln);
    Buf product = p.temp(tag + ".product", rr * ct);
    int rowStride = nRes * ct;
    if (outgoing) {
      launch(Af2Kernels.TRI_MULT, Af2Kernels.triMultLaunch(nRes, ct), sides[0], sides[1], product, nRes, ct, rowStride,
          ct, rowStride, ct);
    } else {
      launch(Af2Kernels.TRI_MULT, Af2Kernels.triMultLaunch(nRes, ct), sides[1], sides[0], product, nRes, ct, ct,
          rowStride, ct, rowStride);
    }
    p.free(sides);
    Buf center = layerNorm(tag + ".center_layer_norm", product, rr, ct, mod + "/center_layer_norm", b);
    p.free(product);
    Buf y = linear(tag + ".output_projection", center, rr, ct, param(mod + "/output_projection//weights", b), cz);
    p.free(center);
    launch(Af2Kernels.GATED_RESIDUAL, Af2Kernels.elementwise(rr * cz), z, y,
        param(mod + "/output_projection//bias", b), gating, param(mod + "/gating_linear//bias", b), n(rr * cz), cz);
    p.free(y, gating);
  }

  /**
   * Triangular gated self-attention around the starting node (Algorithm 13: row i attends over its edges (i, k),
   * biased by edge (j, k)) or the ending node (Algorithm 14: column j over edges (k, j), biased by edge (k, i)),
   * the latter as AlphaFold computes it, on the transposed pair representation, here by swapping strides.
   */
  private void triangleAttention(int b, boolean starting) {
    String mod = BLOCK + (starting ? Weights.TRI_START : Weights.TRI_END);
    String att = mod + "/attention//";
    String tag = starting ? "tri_start" : "tri_end";
    int cz = d.pairChannels();
    int h = d.pairHeads();
    int dim = d.pairHeadDim();
    long rr = (long) nRes * nRes;
    Buf ln = layerNorm(tag + ".query_norm", z, rr, cz, mod + "/query_norm", b);
    Buf[] bias = new Buf[1];
    Buf[] qkvg = projections(tag, att, ln, rr, cz, h * dim, b,
        () -> bias[0] = linear(tag + ".bias", ln, rr, cz, param(mod + "//feat_2d_weights", b), h));
    p.free(ln);
    int hd = h * dim;
    Buf o = starting
        ? attention(tag, qkvg[0], qkvg[1], qkvg[2], qkvg[3], param(att + "gating_b", b), bias[0], nRes, nRes, nRes, h,
            dim, nRes * hd, hd, nRes * h, h)
        : attention(tag, qkvg[0], qkvg[1], qkvg[2], qkvg[3], param(att + "gating_b", b), bias[0], nRes, nRes, nRes, h,
            dim, hd, nRes * hd, h, nRes * h);
    p.free(qkvg);
    p.free(bias[0]);
    Buf y = linear(tag + ".output", o, rr, hd, param(att + "output_w", b), cz);
    p.free(o);
    residual(z, y, param(att + "output_b", b), rr * cz, cz, 1.0f);
    p.free(y);
  }
}
