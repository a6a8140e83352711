package io.gitm.workloads.hft;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a generated ITCH 5.0 session to a file as Nasdaq ships one (2-byte length prefixes, optionally gzip), of
 * any size: what a user's {@code --input} looks like, for benchmarks and trials of the input path. The same
 * parameters give the same bytes; the file appears whole (written beside and moved into place) or not at all.
 */
public final class ItchSamples {
  private ItchSamples() {
  }

  /**
   * {@code ItchSamples FILE BOOK_MESSAGES [INSTRUMENTS [SEED]]}: writes such a file (gzip when FILE ends in .gz) and
   * prints its size.
   */
  public static void main(String[] args) throws IOException {
    if (args.length < 2 || args.length > 4) {
      throw new IllegalArgumentException("usage: ItchSamples FILE BOOK_MESSAGES [INSTRUMENTS [SEED]]");
    }
    Path file = Path.of(args[0]);
    int messages = Integer.parseInt(args[1]);
    int instruments = args.length > 2 ? Integer.parseInt(args[2]) : 4096;
    long seed = args.length > 3 ? Long.parseLong(args[3]) : 20261203L;
    write(file, seed, instruments, messages, file.getFileName().toString().endsWith(".gz"));
    System.out.println(file + ": " + Files.size(file) + " bytes, " + messages + " book messages, " + instruments
        + " instruments, seed " + seed);
  }

  /**
   * Writes {@code bookMessages} book messages over {@code instruments} stocks from {@code seed} to {@code file},
   * gzip-compressed when {@code gzip}.
   */
  public static void write(Path file, long seed, int instruments, int bookMessages, boolean gzip) {
    Path tmp = file.resolveSibling(file.getFileName() + ".part");
    try {
      try (OutputStream raw = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20);
          OutputStream out = gzip ? new GZIPOutputStream(raw, 1 << 16) : raw) {
        ItchGenerator.of(seed, instruments, bookMessages).generate(out);
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
