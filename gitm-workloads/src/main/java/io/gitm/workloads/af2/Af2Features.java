package io.gitm.workloads.af2;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The features of a user's target as AlphaFold's monomer data pipeline names and encodes them
 * ({@code make_sequence_features}, {@code make_msa_features}), one {@code .npy} file each: {@code aatype} (int32
 * [N_res, 21], one-hot in AlphaFold's residue order with X), {@code residue_index}, {@code seq_length}, {@code msa}
 * (int32 [N_alignments, N_res], HHblits ids: the alphabet's order {@code ACDEFGHIKLMNPQRSTVWY}, X 20, gap 21, B as D,
 * Z as E, U as C, J and O as X), {@code deletion_matrix_int}, {@code num_alignments}; and of the template hits read:
 * {@code template_domain_names} (byte strings, {@code 1abc_A}), {@code template_sum_probs} (float32 [N, 1]) and, which AlphaFold's
 * dictionary does not hold (it takes the aligned residues from the template's structure), the aligned ranges
 * {@code template_query_ranges} and {@code template_hit_ranges} (int32 [N, 2], 1-based, inclusive).
 */
final class Af2Features {
  private Af2Features() {
  }

  /** HHblits' ids of A..Z (AlphaFold's {@code HHBLITS_AA_TO_ID}); the gap is 21. */
  private static final int[] HHBLITS = {0, 2, 1, 2, 3, 4, 5, 6, 7, 20, 8, 9, 10, 11, 20, 12, 13, 14, 15, 16, 1, 17, 18,
      20, 19, 3};

  static int hhblits(char c) {
    if (c == '-') {
      return Residues.GAP;
    }
    if (c < 'A' || c > 'Z') {
      throw new IllegalArgumentException("no HHblits id for '" + c + "'");
    }
    return HHBLITS[c - 'A'];
  }

  /** A hit's id as AlphaFold names a template's domain: the PDB code in lower case, then its chain. */
  static String domain(String id) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("([a-zA-Z\\d]{4})_([a-zA-Z0-9.]+)").matcher(id);
    return m.lookingAt() ? m.group(1).toLowerCase(java.util.Locale.ROOT) + "_" + m.group(2) : id;
  }

  static void write(Path dir, String query, Msa merged, List<HhrReader.Hit> templates) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("af2: cannot make " + dir + ": " + e.getMessage(), e);
    }
    int n = query.length();
    int[] aatype = new int[n * Residues.TARGET_CLASSES];
    int[] index = new int[n];
    int[] length = new int[n];
    for (int r = 0; r < n; r++) {
      aatype[r * Residues.TARGET_CLASSES + Residues.targetCode(query.charAt(r))] = 1;
      index[r] = r;
      length[r] = n;
    }
    Npy.int32(dir.resolve("aatype.npy"), aatype, n, Residues.TARGET_CLASSES);
    Npy.int32(dir.resolve("residue_index.npy"), index, n);
    Npy.int32(dir.resolve("seq_length.npy"), length, n);
    List<Integer> keep = merged.distinct(Integer.MAX_VALUE);
    int[] msa = new int[keep.size() * n];
    int[] del = new int[keep.size() * n];
    for (int q = 0; q < keep.size(); q++) {
      String row = merged.rows().get(keep.get(q));
      int[] d = merged.deletions().get(keep.get(q));
      for (int r = 0; r < n; r++) {
        msa[q * n + r] = hhblits(row.charAt(r));
        del[q * n + r] = d[r];
      }
    }
    Npy.int32(dir.resolve("msa.npy"), msa, keep.size(), n);
    Npy.int32(dir.resolve("deletion_matrix_int.npy"), del, keep.size(), n);
    int[] count = new int[n];
    java.util.Arrays.fill(count, keep.size());
    Npy.int32(dir.resolve("num_alignments.npy"), count, n);
    List<String> names = new ArrayList<>();
    float[] probs = new float[templates.size()];
    int[] qr = new int[2 * templates.size()];
    int[] hr = new int[2 * templates.size()];
    for (int t = 0; t < templates.size(); t++) {
      HhrReader.Hit h = templates.get(t);
      names.add(domain(h.id()));
      probs[t] = (float) h.sumProbs();
      qr[2 * t] = h.queryStart();
      qr[2 * t + 1] = h.queryEnd();
      hr[2 * t] = h.hitStart();
      hr[2 * t + 1] = h.hitEnd();
    }
    Npy.bytes(dir.resolve("template_domain_names.npy"), names);
    Npy.float32(dir.resolve("template_sum_probs.npy"), probs, templates.size(), 1);
    Npy.int32(dir.resolve("template_query_ranges.npy"), qr, templates.size(), 2);
    Npy.int32(dir.resolve("template_hit_ranges.npy"), hr, templates.size(), 2);
  }
}
