package io.gitm.workloads.hft;

import io.gitm.workloads.kit.FileKinds;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * A user's ITCH 5.0 file, plain or gzip, read once whole as a stream to validate it and learn what the books need
 * (the scan), then streamed again by each session: it is never held in memory. With a symbol filter only the picked
 * instruments' messages (and those of no instrument, such as system events) are kept, their stock locates renumbered
 * 1..k in directory order.
 *
 * @param file the file
 * @param sha256 the hash of its bytes as stored (compressed or not)
 * @param bytes its size as stored
 * @param gzip whether it is gzip-compressed
 * @param framing how it frames its messages
 * @param wrongPrefixes messages whose 2-byte prefix was neither their type's length nor zero
 * @param count messages kept
 * @param countsByType messages kept of each type byte
 * @param symbols the instruments kept, by their new stock locate (index 0 is locate 1)
 * @param renumber each stock locate's new number (0: dropped), or null where every instrument is kept
 * @param maxLevels the most price levels a side of a kept book held at once
 * @param levelsWhere where it was first reached: the symbol and the message's offset in the decompressed stream
 * @param maxLiveOrders the most orders a kept book held at once
 * @param instruments the highest stock locate a kept book message names
 * @param memory the kept messages, when they were small enough to hold ({@link #scan}'s limit); else null and the
 *     sessions stream the file
 */
record ItchInput(Path file, String sha256, long bytes, boolean gzip, ItchFile.Framing framing, long wrongPrefixes,
    int count, long[] countsByType, List<String> symbols, int[] renumber, int maxLevels, String levelsWhere,
    int maxLiveOrders,
    int instruments, ItchFile memory) implements ItchSource {

  /** Kept messages up to this many bytes are held in memory by {@link #scan(Path, Set)}; more are streamed. */
  static final long HELD_BYTES = 256L << 20;

  /** Decompressed bytes the framing detection looks at. */
  private static final int HEAD = 64 * 1024;

  /** The format as the run folder and report state it. */
  String format() {
    return "ITCH 5.0" + (gzip ? ", gzip" : "") + ", " + switch (framing) {
      case LENGTH_PREFIXED -> "2-byte length prefixes";
      case ZERO_PREFIXED -> "2-byte prefixes all zero";
      case PREFIXED_MIXED -> "2-byte prefixes, " + wrongPrefixes + " wrong";
      case UNFRAMED -> "no prefixes";
    };
  }

  /** One line describing the input, e.g. for logs and the report. */
  String summary() {
    return count + " messages, " + instruments + " instruments" + (renumber == null ? "" : " picked ("
        + String.join(",", symbols) + ")") + ", " + format() + "; the books need " + maxLevels
        + " price levels a side and " + maxLiveOrders + " live orders";
  }

  /**
   * Scans {@code file}: its bytes hashed, its messages framed and validated, the picked instruments' books replayed
   * to learn their largest depth and order count.
   *
   * @param pick stock symbols to keep (as the stock directory names them, without padding); empty keeps all
   */
  static ItchInput scan(Path file, Set<String> pick) {
    return scan(file, pick, HELD_BYTES);
  }

  /**
   * As {@link #scan(Path, Set)}, holding the kept messages in memory when they take at most {@code held} bytes, so
   * that a session's step does not wait on reading (and inflating) the file.
   */
  static ItchInput scan(Path file, Set<String> pick, long held) {
    long size;
    try {
      size = Files.size(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("hft-lob: input " + file + " does not exist");
    } catch (IOException e) {
      throw new UncheckedIOException("hft-lob: cannot read input " + file + ": " + e.getMessage(), e);
    }
    if (Files.isDirectory(file)) {
      throw new IllegalArgumentException("hft-lob: input " + file + " is a folder; give one ITCH 5.0 file");
    }
    if (size == 0) {
      throw new ItchFormatException(0, "empty file, no messages (" + file + ")");
    }
    MessageDigest sha = newSha256();
    try (InputStream raw = new DigestInputStream(Files.newInputStream(file), sha)) {
      Opened o = open(raw, file);
      Scan s = new Scan(pick, held);
      ItchStream in = o.stream(file);
      while (in.next()) {
        s.add(in, o.prefixed);
      }
      raw.transferTo(java.io.OutputStream.nullOutputStream()); // the hash covers every stored byte
      return s.finish(file, HexFormat.of().formatHex(sha.digest()), size, o.gzip, o.prefixed);
    } catch (IOException e) {
      throw new UncheckedIOException("hft-lob: cannot read input " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Cursor cursor() {
    if (memory != null) {
      return memory.cursor();
    }
    InputStream raw;
    try {
      raw = Files.newInputStream(file);
    } catch (IOException e) {
      throw new UncheckedIOException("hft-lob: cannot read input " + file + ": " + e.getMessage(), e);
    }
    ItchStream in;
    try {
      in = new ItchStream(gzip ? new GZIPInputStream(raw, 1 << 16) : raw, framing != ItchFile.Framing.UNFRAMED,
          file.toString());
    } catch (IOException e) {
      closeQuietly(raw);
      throw new UncheckedIOException("hft-lob: cannot read input " + file + ": " + e.getMessage(), e);
    }
    // the file is read, decompressed and framed on a thread of its own, ahead of the steps
    return new ItchReadAhead(new ItchReadAhead.Source() {
      @Override
      public int next(byte[] dst, int at) {
        while (in.next()) {
          byte[] msg = in.message();
          if (renumber == null || keep(msg)) {
            System.arraycopy(msg, 0, dst, at, in.length());
            return in.length();
          }
        }
        return -1;
      }

      @Override
      public void close() {
        in.close();
      }
    }, file.toString());
  }

  /** Whether a message is kept under the symbol filter; a kept message's stock locate is renumbered in place. */
  private boolean keep(byte[] msg) {
    int locate = Itch.u16(msg, 1);
    if (locate == 0) {
      return true;
    }
    int to = renumber[locate];
    if (to == 0) {
      return false;
    }
    Itch.put16(msg, 1, to);
    return true;
  }

  private record Opened(InputStream stream, boolean gzip, boolean prefixed) {
    ItchStream stream(Path file) {
      return new ItchStream(stream, prefixed, file.toString());
    }
  }

  /** Detects compression (gzip is read; other formats are named) and the framing, from the stream's first bytes. */
  private static Opened open(InputStream raw, Path file) throws IOException {
    byte[] magic = raw.readNBytes(6);
    // a sequence closes each stream it has read to the end: the file stays open for the caller to finish and close
    InputStream whole = new SequenceInputStream(new ByteArrayInputStream(magic), new FilterInputStream(raw) {
      @Override
      public void close() {
      }
    });
    boolean gzip = magic.length >= 2 && (magic[0] & 0xff) == 0x1f && (magic[1] & 0xff) == 0x8b;
    String other = otherFormat(magic);
    if (other != null) {
      throw new ItchFormatException(0, file + " is " + other + ", not ITCH 5.0 (plain or gzip)");
    }
    InputStream data = whole;
    if (gzip) {
      try {
        data = new GZIPInputStream(whole, 1 << 16);
      } catch (java.util.zip.ZipException e) {
        throw new ItchFormatException(0, file + " starts like gzip but its header is corrupt: " + e.getMessage());
      }
    }
    byte[] head;
    try {
      head = data.readNBytes(HEAD);
    } catch (java.util.zip.ZipException e) {
      throw new ItchFormatException(0, "the gzip stream is corrupt: " + e.getMessage() + " (" + file + ")");
    } catch (java.io.EOFException e) {
      throw new ItchFormatException(0, "the gzip stream ends early (the file is truncated) (" + file + ")");
    }
    if (head.length == 0) {
      throw new ItchFormatException(0, "no messages: the " + (gzip ? "gzip stream" : "file") + " is empty (" + file
          + ")");
    }
    if (gzip) {
      String inside = head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b
          ? "gzip again (compressed twice: decompress it once)" : otherFormat(head);
      if (inside != null) {
        throw new ItchFormatException(0, file + " is gzip of something else: what it holds is " + inside);
      }
    }
    boolean prefixed = ItchReader.prefixed(head, head.length < HEAD);
    return new Opened(new SequenceInputStream(new ByteArrayInputStream(head), data), gzip, prefixed);
  }

  /** The name of a known non-ITCH format the first bytes show (gzip is read, so not one), or null. */
  private static String otherFormat(byte[] m) {
    boolean gzip = m.length >= 2 && (m[0] & 0xff) == 0x1f && (m[1] & 0xff) == 0x8b;
    return gzip ? null : FileKinds.sniff(m);
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is unavailable", e);
    }
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // the open failed already; that failure is reported
    }
  }

  /** The scan's state: counts, the directory, and a light replay of each kept book. */
  private static final class Scan {
    private final Set<String> pick;
    private final Set<String> seen = new LinkedHashSet<>();
    private final String[] names = new String[65536];
    private final boolean[] listed = new boolean[65536];
    private final int[] renumber = new int[65536];
    private final List<String> symbols = new ArrayList<>();
    private final long[] byType = new long[256];
    private final ItchDepth depth = new ItchDepth();
    private int highest;
    private long count;
    private long matching;
    private long zero;
    private long wrong;

    /** The kept messages while they fit in {@code held} bytes; null once they do not. */
    private byte[] kept;
    private int keptBytes;
    private int[] keptAt = new int[1024];
    private final long held;

    Scan(Set<String> pick, long held) {
      this.pick = pick;
      this.held = held;
      this.kept = held > 0 ? new byte[(int) Math.min(held, 1 << 20)] : null;
    }

    void add(ItchStream in, boolean prefixed) {
      byte[] m = in.message();
      int type = in.type();
      if (prefixed) {
        int p = in.prefix();
        if (p == in.length()) {
          matching++;
        } else if (p == 0) {
          zero++;
        } else {
          wrong++;
        }
      }
      try {
        ItchReader.validate(m, 0, type, listed, 0);
      } catch (ItchFormatException e) {
        throw new ItchFormatException(in.offset() + e.offset(), e.detail());
      }
      int locate = Itch.u16(m, 1);
      if (type == 'R') {
        String symbol = new String(m, 11, 8, StandardCharsets.US_ASCII).strip();
        seen.add(symbol);
        if (renumber[locate] == 0 && (pick.isEmpty() || pick.contains(symbol))) {
          symbols.add(symbol);
          names[pick.isEmpty() ? locate : symbols.size()] = symbol;
          renumber[locate] = pick.isEmpty() ? locate : symbols.size();
        }
      }
      if (locate != 0 && renumber[locate] == 0 && !pick.isEmpty()) {
        return;
      }
      if (locate != 0 && Itch.isBookType(type)) {
        int to = renumber[locate];
        highest = Math.max(highest, to);
        depth.apply(to, type, m, in.offset());
      } else if (type == 'R') {
        highest = Math.max(highest, renumber[locate]);
      }
      byType[type]++;
      hold(m, in.length(), locate);
      count++;
      if (count > Integer.MAX_VALUE - 1) {
        throw new ItchFormatException(in.offset(), "more than 2^31-1 messages kept: pick instruments with --symbols");
      }
    }

    /** Appends a kept message (renumbered) to the held copy while it fits. */
    private void hold(byte[] m, int len, int locate) {
      if (kept == null) {
        return;
      }
      if (keptBytes + len > held) {
        kept = null;
        keptAt = null;
        return;
      }
      if (keptBytes + len > kept.length) {
        kept = Arrays.copyOf(kept, (int) Math.min(held, 2L * kept.length + len));
      }
      if (count == keptAt.length) {
        keptAt = Arrays.copyOf(keptAt, 2 * keptAt.length);
      }
      keptAt[(int) count] = keptBytes;
      System.arraycopy(m, 0, kept, keptBytes, len);
      if (locate != 0 && !pick.isEmpty()) {
        Itch.put16(kept, keptBytes + 1, renumber[locate]);
      }
      keptBytes += len;
    }

    ItchInput finish(Path file, String sha, long size, boolean gzip, boolean prefixed) {
      if (!pick.isEmpty()) {
        List<String> missing = pick.stream().filter(s -> !seen.contains(s)).sorted().toList();
        if (!missing.isEmpty()) {
          throw new IllegalArgumentException("hft-lob: --symbols " + String.join(",", missing) + (missing.size() == 1
              ? " is" : " are") + " not in " + file + "'s stock directory (" + seen.size() + " symbols, e.g. "
              + String.join(",", seen.stream().limit(5).toList()) + ")");
        }
      }
      if (highest == 0) {
        throw new IllegalArgumentException("hft-lob: input " + file + " has no stock directory (R) messages, so no"
            + " instruments");
      }
      ItchFile.Framing framing = ItchFile.Framing.of(prefixed, matching, zero, wrong);
      return new ItchInput(file, sha, size, gzip, framing, wrong, (int) count, Arrays.copyOf(byType, 128),
          List.copyOf(symbols), pick.isEmpty() ? null : renumber, depth.maxLevels(), depth.maxLevels() == 0 ? ""
          : names[depth.levelsLocate()] + " at byte offset " + depth.levelsAt(), depth.maxLiveOrders(), highest,
          kept == null ? null : new ItchFile(Arrays.copyOf(kept, keptBytes), Arrays.copyOf(keptAt, (int) count),
              framing, wrong, highest, Arrays.copyOf(byType, 128)));
    }
  }
}
