package io.gitm.workloads.af2;

/**
 * The integer inputs of one inference, as the device receives them.
 *
 * @param nRes residues (columns)
 * @param nSeq alignment rows
 * @param aatype the query's residue types, {@link Residues#targetCode} (0..20), {@code nRes} of them
 * @param msa the alignment's residue codes, {@link Residues#msaCode} (0..21), row-major {@code [nSeq][nRes]}
 * @param deletions insertions before each column, row-major {@code [nSeq][nRes]}
 */
record Features(int nRes, int nSeq, int[] aatype, int[] msa, int[] deletions) {
  Features {
    if (nRes < 1 || nSeq < 1 || aatype.length != nRes || msa.length != nRes * nSeq || deletions.length != msa.length) {
      throw new IllegalArgumentException("features shaped for another alignment: " + nSeq + " x " + nRes);
    }
  }
}
