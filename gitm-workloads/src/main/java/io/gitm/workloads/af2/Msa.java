package io.gitm.workloads.af2;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A multiple sequence alignment as AlphaFold reads it from an A3M file: every row aligned to the query's columns
 * (insertions removed), with the number of insertions (deletions, in AlphaFold's terms) that precede each column.
 * The first row is the query. A FASTA query alone is an alignment of depth one.
 *
 * @param source the file (or other source) it was read from
 * @param descriptions each row's header line without its {@code >}
 * @param rows the aligned rows: upper-case residues and {@code -}, all as long as the query
 * @param deletions per row and column, the lower-case residues removed just before that column
 */
record Msa(String source, List<String> descriptions, List<String> rows, List<int[]> deletions) {
  Msa {
    descriptions = List.copyOf(descriptions);
    rows = List.copyOf(rows);
    deletions = List.copyOf(deletions);
    if (rows.isEmpty() || rows.size() != descriptions.size() || rows.size() != deletions.size()) {
      throw new IllegalArgumentException(source + ": an alignment needs at least one row, each with a description and"
          + " deletions");
    }
    int length = rows.getFirst().length();
    for (int i = 0; i < rows.size(); i++) {
      if (rows.get(i).length() != length || deletions.get(i).length != length) {
        throw new IllegalArgumentException(source + ": row " + i + " is not " + length + " columns long");
      }
    }
  }

  /** The query: the first row. */
  String query() {
    return rows.getFirst();
  }

  /** Columns (residues of the query). */
  int length() {
    return query().length();
  }

  int depth() {
    return rows.size();
  }

  /**
   * The indices of the first {@code maxRows} distinct rows, in file order (AlphaFold drops a row whose aligned
   * sequence repeats an earlier one).
   */
  List<Integer> distinct(int maxRows) {
    List<Integer> keep = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < rows.size() && keep.size() < maxRows; i++) {
      if (seen.add(rows.get(i))) {
        keep.add(i);
      }
    }
    return keep;
  }

  /**
   * The model's integer inputs from the first {@code maxRows} distinct rows, in file order (AlphaFold drops a row
   * whose aligned sequence repeats an earlier one, keeping the first's deletions).
   */
  Features features(int maxRows) {
    if (maxRows < 1) {
      throw new IllegalArgumentException("an alignment needs at least one row, got maxRows = " + maxRows);
    }
    int n = length();
    List<Integer> keep = distinct(maxRows);
    int s = keep.size();
    int[] aatype = new int[n];
    int[] msa = new int[s * n];
    int[] del = new int[s * n];
    for (int r = 0; r < n; r++) {
      aatype[r] = Residues.targetCode(query().charAt(r));
    }
    for (int q = 0; q < s; q++) {
      String row = rows.get(keep.get(q));
      int[] d = deletions.get(keep.get(q));
      for (int r = 0; r < n; r++) {
        msa[q * n + r] = Residues.msaCode(row.charAt(r));
        del[q * n + r] = d[r];
      }
    }
    return new Features(n, s, aatype, msa, del);
  }
}
