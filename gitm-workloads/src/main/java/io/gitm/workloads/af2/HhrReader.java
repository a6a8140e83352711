package io.gitm.workloads.af2;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads template hits from an HHsearch or HHblits result ({@code pdb_hits.hhr}) as AlphaFold's {@code parse_hhr}
 * does: each hit is the paragraph from a line {@code No N} to the next; its second line is {@code >name ...}, its third
 * the summary ({@code Probab= E-value= Score= Aligned_cols= Identities= Similarity= Sum_probs= Template_Neff=}); its
 * alignment is the {@code Q <name>} and {@code T <name>} lines (not the {@code ss_pred}, {@code ss_dssp} or
 * {@code Consensus} ones), whose text from column 18 is {@code start residues end (length)}. A hit whose summary or
 * alignment lines do not read so is refused naming the line.
 */
final class HhrReader {
  private HhrReader() {
  }

  /**
   * One template hit.
   *
   * @param name the hit's line after {@code >}: its PDB id and chain, then its description
   * @param queryStart, queryEnd the query residues aligned, 1-based and inclusive
   * @param hitStart, hitEnd the template residues aligned, 1-based and inclusive
   * @param query, hit the aligned rows ({@code -} where the other has an insertion)
   */
  record Hit(int index, String name, double probability, double eValue, double score, int alignedCols,
      double sumProbs, int queryStart, int queryEnd, int hitStart, int hitEnd, String query, String hit) {
    /** The hit's PDB id and chain: the first word of its name. */
    String id() {
      int sp = name.indexOf(' ');
      return sp < 0 ? name : name.substring(0, sp);
    }
  }

  private static final Pattern SUMMARY = Pattern.compile("Probab=(\\S+)\\s+E-value=(\\S+)\\s+Score=(\\S+)\\s+"
      + "Aligned_cols=(\\S+)\\s+Identities=(\\S+)%\\s+Similarity=(\\S+)\\s+Sum_probs=(\\S+)\\s+Template_Neff=(\\S+)");
  private static final Pattern Q = Pattern.compile("[\\t ]*([0-9]+) ([A-Z-]*)[\\t ]*([0-9]+) \\([0-9]*\\)");

  static List<Hit> parse(String text, String source) {
    String[] lines = text.split("\r\n|\r|\n", -1);
    List<Integer> starts = new ArrayList<>();
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].startsWith("No ")) {
        starts.add(i);
      }
    }
    if (starts.isEmpty() && !text.isBlank() && !text.startsWith("Query")) {
      throw new MsaFormatException(source, 1, "not an HHsearch/HHblits result (.hhr): it starts '"
          + lines[0].substring(0, Math.min(40, lines[0].length())) + "', not 'Query'");
    }
    List<Hit> hits = new ArrayList<>();
    starts.add(lines.length);
    for (int k = 0; k + 1 < starts.size(); k++) {
      hits.add(hit(lines, starts.get(k), starts.get(k + 1), source));
    }
    return hits;
  }

  private static Hit hit(String[] lines, int from, int to, String source) {
    int index;
    try {
      index = Integer.parseInt(lines[from].substring(3).strip());
    } catch (NumberFormatException e) {
      throw new MsaFormatException(source, from + 1, "a hit starts 'No N', got '" + lines[from] + "'");
    }
    if (from + 2 >= to || !lines[from + 1].startsWith(">")) {
      throw new MsaFormatException(source, from + 2, "hit " + index + ": the line after 'No " + index + "' is"
          + " '>name ...'");
    }
    String name = lines[from + 1].substring(1).strip();
    Matcher m = SUMMARY.matcher(lines[from + 2]);
    if (!m.find()) {
      throw new MsaFormatException(source, from + 3, "hit " + index + ": no summary 'Probab=… E-value=… Score=…"
          + " Aligned_cols=… Identities=…% Similarity=… Sum_probs=… Template_Neff=…'");
    }
    double[] v = new double[8];
    for (int g = 0; g < 8; g++) {
      try {
        v[g] = Double.parseDouble(m.group(g + 1));
      } catch (NumberFormatException e) {
        throw new MsaFormatException(source, from + 3, "hit " + index + ": '" + m.group(g + 1) + "' is not a"
            + " number");
      }
    }
    StringBuilder query = new StringBuilder();
    StringBuilder hit = new StringBuilder();
    int[] q = {-1, -1};
    int[] t = {-1, -1};
    int block = -1;
    for (int i = from + 3; i < to; i++) {
      String line = lines[i];
      boolean isQ = line.startsWith("Q ") && !annotation(line.substring(2));
      boolean isT = line.startsWith("T ") && !annotation(line.substring(2));
      if (!isQ && !isT) {
        continue;
      }
      Matcher a = Q.matcher(line.length() > 17 ? line.substring(17) : "");
      if (!a.lookingAt()) {
        throw new MsaFormatException(source, i + 1, "hit " + index + ": an alignment line reads 'start residues end"
            + " (length)' from column 18");
      }
      int start = Integer.parseInt(a.group(1));
      int end = Integer.parseInt(a.group(3));
      String residues = a.group(2);
      if (isQ) {
        int gaps = (int) residues.chars().filter(c -> c == '-').count();
        if (end - start + 1 + gaps != residues.length()) {
          throw new MsaFormatException(source, i + 1, "hit " + index + ": residues " + start + "-" + end + " and "
              + gaps + " gaps are not the " + residues.length() + " columns shown");
        }
        block = residues.length();
        query.append(residues);
        q[0] = q[0] < 0 ? start : q[0];
        q[1] = end;
      } else {
        if (residues.length() != block) {
          throw new MsaFormatException(source, i + 1, "hit " + index + ": the template line has " + residues.length()
              + " columns, its query line " + block);
        }
        hit.append(residues);
        t[0] = t[0] < 0 ? start : t[0];
        t[1] = end;
      }
    }
    return new Hit(index, name, v[0], v[1], v[2], (int) v[3], v[6], q[0], q[1], t[0], t[1], query.toString(),
        hit.toString());
  }

  private static boolean annotation(String rest) {
    return rest.startsWith("ss_dssp") || rest.startsWith("ss_pred") || rest.startsWith("Consensus");
  }
}
