package io.gitm.workloads.af2;

/**
 * The Evoformer's architecture sizes (AlphaFold2's names in brackets).
 *
 * @param msaChannels c_m [msa_channel]: channels of the MSA representation
 * @param pairChannels c_z [pair_channel]: channels of the pair representation
 * @param blocks Evoformer blocks [evoformer_num_block]
 * @param msaHeads heads of the MSA row and column attentions (head dimension c_m / heads)
 * @param pairHeads heads of the triangle attentions (head dimension c_z / heads)
 * @param outerChannels c [num_outer_channel] of the outer product mean
 * @param triangleChannels c [num_intermediate_channel] of the triangle multiplications
 * @param transitionFactor n [num_intermediate_factor] of the MSA and pair transitions
 * @param singleChannels c_s [seq_channel]: channels of the single representation made from the first MSA row
 */
record Dims(int msaChannels, int pairChannels, int blocks, int msaHeads, int pairHeads, int outerChannels,
    int triangleChannels, int transitionFactor, int singleChannels) {
  /** AlphaFold2's relative position encoding: offsets clipped to +-32, 65 one-hot bins. */
  static final int MAX_RELATIVE = 32;
  static final int RELPOS_BINS = 2 * MAX_RELATIVE + 1;

  Dims {
    positive("msaChannels", msaChannels);
    positive("pairChannels", pairChannels);
    positive("blocks", blocks);
    positive("msaHeads", msaHeads);
    positive("pairHeads", pairHeads);
    positive("outerChannels", outerChannels);
    positive("triangleChannels", triangleChannels);
    positive("transitionFactor", transitionFactor);
    positive("singleChannels", singleChannels);
    if (msaChannels % msaHeads != 0 || pairChannels % pairHeads != 0) {
      throw new IllegalArgumentException("af2: channels must divide into heads: c_m " + msaChannels + " / "
          + msaHeads + " heads, c_z " + pairChannels + " / " + pairHeads + " heads");
    }
    if (msaChannels / msaHeads > Af2Kernels.MAX_HEAD_DIM || pairChannels / pairHeads > Af2Kernels.MAX_HEAD_DIM) {
      throw new IllegalArgumentException("af2: a head dimension above " + Af2Kernels.MAX_HEAD_DIM + " (c_m / heads = "
          + msaChannels / msaHeads + ", c_z / heads = " + pairChannels / pairHeads + ") is not supported");
    }
  }

  private static void positive(String name, int v) {
    if (v < 1 || v > 4096) {
      throw new IllegalArgumentException("af2: " + name + " must be 1..4096, got " + v);
    }
  }

  /** AlphaFold2's monomer model (model_1 .. model_5): 48 blocks, c_m 256, c_z 128, 8 and 4 heads of 32. */
  static Dims alphafold2() {
    return new Dims(256, 128, 48, 8, 4, 32, 128, 4, 384);
  }

  int msaHeadDim() {
    return msaChannels / msaHeads;
  }

  int pairHeadDim() {
    return pairChannels / pairHeads;
  }
}
