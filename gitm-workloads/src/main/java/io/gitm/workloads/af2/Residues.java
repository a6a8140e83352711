package io.gitm.workloads.af2;

/**
 * AlphaFold's residue alphabets. The query's residue types ({@code aatype}) are the 20 standard amino acids in
 * AlphaFold's order {@code ARNDCQEGHILKMFPSTWYV} (0..19) and X (20) for anything else. Alignment rows are read the
 * way AlphaFold reads HHblits output: also B as D, Z as E, U as C, and the gap {@code -} as 21; 22 is the masked-MSA
 * token, which inference without masking never produces.
 */
final class Residues {
  private Residues() {
  }

  static final String ORDER = "ARNDCQEGHILKMFPSTWYV";
  static final int UNKNOWN = 20;
  static final int GAP = 21;
  /** Classes of the alignment's one-hot encoding: 20 residues, X, gap and the mask token. */
  static final int MSA_CLASSES = 23;
  /** Classes of the query's one-hot encoding: 20 residues and X. */
  static final int TARGET_CLASSES = 21;

  /** The query's code for an upper-case residue letter. */
  static int targetCode(char c) {
    int i = ORDER.indexOf(c);
    return i >= 0 ? i : UNKNOWN;
  }

  /** An alignment row's code for an upper-case residue letter or {@code -}. */
  static int msaCode(char c) {
    return switch (c) {
      case '-' -> GAP;
      case 'B' -> ORDER.indexOf('D');
      case 'Z' -> ORDER.indexOf('E');
      case 'U' -> ORDER.indexOf('C');
      default -> targetCode(c);
    };
  }
}
