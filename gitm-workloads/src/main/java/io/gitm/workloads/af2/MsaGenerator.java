package io.gitm.workloads.af2;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A seeded synthetic protein family in A3M: a random query of {@code residues} amino acids (drawn at their
 * UniProt background frequencies) and {@code rows - 1} homologs, each at its own identity to the query (uniform
 * in 20%..95%): substitutions at background frequencies, runs of deleted columns ({@code -}, geometric lengths),
 * runs of inserted residues (lower case) between columns, and some fragments that cover only part of the query
 * (terminal gaps), as a database search returns them. Same arguments, same bytes.
 */
final class MsaGenerator {
  /** Bumped whenever the output for the same arguments changes (part of the dataset's name). */
  static final int VERSION = 1;

  /** Background frequencies of {@link Residues#ORDER} (UniProtKB/Swiss-Prot composition, percent). */
  private static final double[] BACKGROUND = {8.25, 5.53, 4.06, 5.45, 1.37, 3.93, 6.75, 7.07, 2.27, 5.96, 9.66, 5.84,
      2.42, 3.86, 4.70, 6.56, 5.34, 1.08, 2.92, 6.87};

  private final long seed;
  private final int residues;
  private final int rows;

  MsaGenerator(long seed, int residues, int rows) {
    if (residues < 1 || residues > 1 << 16 || rows < 1 || rows > 1 << 16) {
      throw new IllegalArgumentException("a generated alignment needs 1..65536 residues and rows, got " + residues
          + " x " + rows);
    }
    this.seed = seed;
    this.residues = residues;
    this.rows = rows;
  }

  byte[] generate() {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] cdf = new double[BACKGROUND.length];
    double sum = 0;
    for (int i = 0; i < cdf.length; i++) {
      sum += BACKGROUND[i];
      cdf[i] = sum;
    }
    char[] query = new char[residues];
    for (int i = 0; i < residues; i++) {
      query[i] = draw(rnd, cdf, sum);
    }
    StringBuilder out = new StringBuilder((residues + 40) * rows * 11 / 10);
    out.append(">query synthetic family g").append(VERSION).append(" seed ").append(seed).append('\n');
    out.append(query).append('\n');
    for (int h = 1; h < rows; h++) {
      double identity = 0.20 + 0.75 * rnd.nextDouble();
      // a fragment covers [from, to) of the query; the rest are terminal gaps
      int from = 0;
      int to = residues;
      if (rnd.nextDouble() < 0.3) {
        int span = Math.max(1, (int) (residues * (0.4 + 0.6 * rnd.nextDouble())));
        from = rnd.nextInt(residues - span + 1);
        to = from + span;
      }
      out.append(">hom_").append(h).append(" identity=").append(String.format(Locale.ROOT, "%.2f", identity))
          .append(" cover=").append(from + 1).append('-').append(to).append('\n');
      int deleting = 0;
      for (int i = 0; i < residues; i++) {
        if (i < from || i >= to) {
          out.append('-');
          continue;
        }
        if (deleting > 0) {
          deleting--;
          out.append('-');
        } else if (rnd.nextDouble() < 0.02) {
          deleting = geometric(rnd, 0.35);
          out.append('-');
        } else {
          out.append(rnd.nextDouble() < identity ? query[i] : draw(rnd, cdf, sum));
        }
        if (i + 1 < to && rnd.nextDouble() < 0.015) {
          for (int k = 1 + geometric(rnd, 0.4); k > 0; k--) {
            out.append(Character.toLowerCase(draw(rnd, cdf, sum)));
          }
        }
      }
      out.append('\n');
    }
    return out.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private static char draw(SplittableRandom rnd, double[] cdf, double sum) {
    double u = rnd.nextDouble() * sum;
    for (int i = 0; i < cdf.length; i++) {
      if (u < cdf[i]) {
        return Residues.ORDER.charAt(i);
      }
    }
    return Residues.ORDER.charAt(cdf.length - 1);
  }

  /** Failures before the first success of a Bernoulli(p) sequence. */
  private static int geometric(SplittableRandom rnd, double p) {
    int k = 0;
    while (rnd.nextDouble() >= p && k < 64) {
      k++;
    }
    return k;
  }
}
