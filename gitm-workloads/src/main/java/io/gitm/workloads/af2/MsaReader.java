package io.gitm.workloads.af2;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Reads FASTA and A3M text as AlphaFold's parsers do: a record starts at a {@code >} header line, its sequence is
 * the following lines with surrounding white space removed, blank lines are skipped.
 *
 * <p>In A3M, upper-case letters and {@code -} are the alignment's columns (match states and deletions from the
 * query's point of view); lower-case letters are residues inserted relative to the query: they are removed, and
 * each column records how many were removed just before it (AlphaFold's deletion matrix). {@code .} (a gap in an
 * insert column, which some tools write) is removed too and counts as nothing. Every row must have as many columns
 * as the query (the first record), and the query itself may have no insertions.
 *
 * <p>In FASTA, a sequence is letters of either case (read as upper case) with an optional {@code *} at its end.
 *
 * <p>Anything else is an {@link MsaFormatException} naming the line (and column): text before the first header,
 * a header with no sequence, an unexpected character, a row of the wrong length, a file with no record.
 */
final class MsaReader {
  private MsaReader() {
  }

  /** A record as read: its header line's number, its description and its sequence text. */
  private record Raw(int line, String description, String sequence) {
  }

  /** Reads {@code file} as A3M when it ends in {@code .a3m}, else as FASTA. */
  static Msa read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (MalformedInputException e) {
      throw new MsaFormatException(file.toString(), 1, "not UTF-8 text");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    return name.endsWith(".a3m") ? a3m(text, file.toString()) : fasta(text, file.toString());
  }

  /** The alignment in A3M text; {@code source} names it in errors. */
  static Msa a3m(String text, String source) {
    List<Raw> raw = records(text, source, true);
    List<String> descriptions = new ArrayList<>();
    List<String> rows = new ArrayList<>();
    List<int[]> deletions = new ArrayList<>();
    int width = -1;
    for (int q = 0; q < raw.size(); q++) {
      Raw r = raw.get(q);
      String s = r.sequence();
      StringBuilder aligned = new StringBuilder(s.length());
      int[] del = new int[s.length()];
      int pending = 0;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c >= 'a' && c <= 'z') {
          if (q == 0) {
            throw new MsaFormatException(source, r.line(), "the query (first record, '" + r.description()
                + "') has an insertion ('" + c + "'): the query defines the alignment's columns, so it is all"
                + " upper case");
          }
          pending++;
        } else if (c != '.') {
          del[aligned.length()] = pending;
          pending = 0;
          aligned.append(c);
        }
      }
      if (width < 0) {
        width = aligned.length();
        if (width == 0) {
          throw new MsaFormatException(source, r.line(), "the query has no columns");
        }
      } else if (aligned.length() != width) {
        throw new MsaFormatException(source, r.line(), "record '" + r.description() + "' has " + aligned.length()
            + " aligned columns (upper-case letters and '-') but the query has " + width);
      }
      descriptions.add(r.description());
      rows.add(aligned.toString());
      deletions.add(Arrays.copyOf(del, width));
    }
    return new Msa(source, descriptions, rows, deletions);
  }

  /**
   * The query in FASTA text, as an alignment of depth one: AlphaFold's monomer pipeline takes exactly one sequence,
   * so a second record is an error at its header.
   */
  static Msa fasta(String text, String source) {
    List<Raw> raw = records(text, source, false);
    if (raw.size() > 1) {
      throw new MsaFormatException(source, raw.get(1).line(), "a second sequence ('" + raw.get(1).description()
          + "'): a FASTA query holds exactly one (give an alignment as an .a3m file)");
    }
    Raw r = raw.getFirst();
    String s = r.sequence();
    if (s.endsWith("*")) {
      s = s.substring(0, s.length() - 1);
      if (s.isEmpty()) {
        throw new MsaFormatException(source, r.line(), "record '" + r.description() + "' has no residues");
      }
    }
    return new Msa(source, List.of(r.description()), List.of(s), List.of(new int[s.length()]));
  }

  /**
   * The records of FASTA-like text, each character checked where it stands: A3M allows letters, {@code -} and
   * {@code .}; FASTA allows letters (upper-cased) and {@code *} as a sequence's last character.
   */
  private static List<Raw> records(String text, String source, boolean a3m) {
    List<Raw> out = new ArrayList<>();
    String[] lines = text.split("\r\n|\r|\n", -1);
    int header = -1;
    String description = null;
    StringBuilder seq = null;
    int starLine = -1;
    for (int ln = 0; ln < lines.length; ln++) {
      String line = lines[ln].strip();
      int number = ln + 1;
      if (line.startsWith(">")) {
        if (seq != null) {
          out.add(finish(header, description, seq, source));
        }
        header = number;
        description = line.substring(1).strip();
        seq = new StringBuilder();
        starLine = -1;
        continue;
      }
      if (line.isEmpty()) {
        continue;
      }
      if (seq == null) {
        throw new MsaFormatException(source, number, "sequence data before the first '>' header line");
      }
      int lead = lines[ln].indexOf(line.charAt(0));
      for (int i = 0; i < line.length(); i++) {
        char c = line.charAt(i);
        if (starLine >= 0) {
          throw new MsaFormatException(source, starLine, "'*' ends a sequence, but more follows on line " + number);
        }
        boolean ok;
        if (a3m) {
          ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '.';
        } else if (c == '*') {
          ok = true;
          starLine = number;
        } else {
          ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
          c = Character.toUpperCase(c);
        }
        if (!ok) {
          throw new MsaFormatException(source, number, "column " + (lead + i + 1) + ": unexpected character "
              + shown(c) + (a3m ? " (A3M has upper-case residues, lower-case insertions, '-' and '.')"
              : " (a FASTA sequence has letters only, and '*' at its end)"));
        }
        seq.append(c);
      }
    }
    if (seq != null) {
      out.add(finish(header, description, seq, source));
    }
    if (out.isEmpty()) {
      int last = lines.length - (lines[lines.length - 1].isEmpty() ? 1 : 0);
      throw new MsaFormatException(source, Math.max(1, last), "no sequence: no '>' header line in the file");
    }
    return out;
  }

  private static Raw finish(int header, String description, StringBuilder seq, String source) {
    if (seq.isEmpty()) {
      throw new MsaFormatException(source, header, "header '>" + description + "' has no sequence");
    }
    return new Raw(header, description, seq.toString());
  }

  private static String shown(char c) {
    return c >= 0x20 && c < 0x7f ? "'" + c + "'" : String.format("U+%04X", (int) c);
  }
}
