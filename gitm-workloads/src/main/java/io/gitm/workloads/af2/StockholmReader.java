package io.gitm.workloads.af2;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a Stockholm alignment (what jackhmmer writes with {@code -A}: AlphaFold's {@code uniref90_hits.sto},
 * {@code mgnify_hits.sto}, {@code small_bfd_hits.sto}) as AlphaFold's {@code parse_stockholm} does: markup lines
 * ({@code #...}) and {@code //} are skipped; every other line is a name and a piece of its row, the pieces of one name
 * joined in file order (blocks); the first name is the query. Columns where the query has a gap are insert columns:
 * dropped from every row, a residue a row has there counted as a deletion before the next query column. Only the
 * first {@code maxSequences} names are read (AlphaFold caps uniref90 at 10000 and MGnify at 501 hits).
 *
 * <p>Where AlphaFold would fail later (a {@code KeyError} on a character the HHblits alphabet lacks, an index past a
 * short row), a malformed file is refused here naming the line: a first line that is not {@code # STOCKHOLM}, a row
 * line of other than two fields, rows of different lengths, a character other than a letter, {@code -} or {@code .}
 * (the Stockholm gap characters, read alike), a lower-case letter in a query column (an insert residue where the query
 * has one), a query with no residue.
 */
final class StockholmReader {
  private StockholmReader() {
  }

  /** A row as read: the line of its first piece and its joined text. */
  private static final class Row {
    final int line;
    final StringBuilder text = new StringBuilder();

    Row(int line) {
      this.line = line;
    }
  }

  static Msa parse(String text, String source, int maxSequences) {
    String[] lines = text.split("\r\n|\r|\n", -1);
    Map<String, Row> rows = new LinkedHashMap<>();
    boolean header = false;
    for (int ln = 0; ln < lines.length; ln++) {
      String line = lines[ln].strip();
      int number = ln + 1;
      if (line.isEmpty()) {
        continue;
      }
      if (!header) {
        if (!line.startsWith("# STOCKHOLM")) {
          throw new MsaFormatException(source, number, "not a Stockholm alignment: it starts '" + abbreviated(line)
              + "', not '# STOCKHOLM 1.0'");
        }
        header = true;
        continue;
      }
      if (line.startsWith("#") || line.startsWith("//")) {
        continue;
      }
      String[] f = line.split("\\s+");
      if (f.length != 2) {
        throw new MsaFormatException(source, number, "an alignment line is a name and its residues, got " + f.length
            + " fields");
      }
      Row r = rows.get(f[0]);
      if (r == null) {
        if (rows.size() >= maxSequences) {
          continue;
        }
        r = new Row(number);
        rows.put(f[0], r);
      }
      for (int i = 0; i < f[1].length(); i++) {
        char c = f[1].charAt(i);
        if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '-' || c == '.')) {
          throw new MsaFormatException(source, number, "unexpected character '" + c + "' in row '" + f[0] + "'"
              + " (a Stockholm row has residue letters, '-' and '.')");
        }
      }
      r.text.append(f[1]);
    }
    if (rows.isEmpty()) {
      throw new MsaFormatException(source, Math.max(1, lines.length - 1), header ? "no alignment rows"
          : "empty: not a Stockholm alignment");
    }
    List<String> names = new ArrayList<>(rows.keySet());
    String query = rows.get(names.getFirst()).text.toString();
    boolean[] keep = new boolean[query.length()];
    int width = 0;
    for (int i = 0; i < keep.length; i++) {
      keep[i] = !gap(query.charAt(i));
      width += keep[i] ? 1 : 0;
    }
    if (width == 0) {
      throw new MsaFormatException(source, rows.get(names.getFirst()).line, "the query ('" + names.getFirst()
          + "') has no residue");
    }
    List<String> aligned = new ArrayList<>();
    List<int[]> deletions = new ArrayList<>();
    for (String name : names) {
      Row r = rows.get(name);
      String s = r.text.toString();
      if (s.length() != query.length()) {
        throw new MsaFormatException(source, r.line, "row '" + name + "' has " + s.length() + " columns, the query"
            + " ('" + names.getFirst() + "') " + query.length());
      }
      StringBuilder a = new StringBuilder(width);
      int[] del = new int[width];
      int pending = 0;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (!keep[i]) {
          pending += gap(c) ? 0 : 1;
          continue;
        }
        if (c >= 'a' && c <= 'z') {
          throw new MsaFormatException(source, r.line, "row '" + name + "' has the insert residue '" + c + "' in"
              + " query column " + (i + 1) + " (match columns hold upper-case residues or gaps)");
        }
        del[a.length()] = pending;
        pending = 0;
        a.append(gap(c) ? '-' : c);
      }
      aligned.add(a.toString());
      deletions.add(del);
    }
    return new Msa(source, names, aligned, deletions);
  }

  private static boolean gap(char c) {
    return c == '-' || c == '.';
  }

  private static String abbreviated(String line) {
    return line.length() > 40 ? line.substring(0, 40) + "…" : line;
  }
}
