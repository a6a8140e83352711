package io.gitm.workloads.hft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads ITCH 5.0 files. The framing is detected from the file (2-byte length prefixes, checked against each type's
 * fixed length, or none); every message is validated; a truncated or malformed file raises
 * {@link ItchFormatException} naming the byte offset, and nothing is returned half-loaded.
 */
final class ItchReader {
  private ItchReader() {
  }

  /** Messages the framing detection parses before deciding. */
  private static final int PROBE_MESSAGES = 256;

  static ItchFile read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read ITCH file " + file + ": " + e.getMessage(), e);
    }
    return parse(bytes);
  }

  static ItchFile parse(byte[] in) {
    if (in.length == 0) {
      throw new ItchFormatException(0, "empty input, no messages");
    }
    boolean prefixed = prefixed(in, true);
    return parseAll(in, prefixed);
  }

  /**
   * Whether the messages that start {@code in} are framed by 2-byte prefixes. Each framing is tried on the first
   * messages; where both parse, a plausible first prefix (the type's length or zero) decides; where neither does,
   * the one that got further is taken, so that the error names where the file really breaks.
   *
   * @param whole whether {@code in} is the whole input (else its end may cut a message, which is no failure)
   */
  static boolean prefixed(byte[] in, boolean whole) {
    long withPrefix = probe(in, true, whole);
    long without = probe(in, false, whole);
    if (withPrefix < 0 && without < 0) {
      int p = in.length >= 3 ? Itch.u16(in, 0) : -1;
      return p == 0 || p == Itch.length(in[2]);
    }
    if (withPrefix < 0 || without < 0) {
      return withPrefix < 0;
    }
    return withPrefix >= without;
  }

  /** -1 when the first messages parse under the framing, else the offset where it failed. */
  private static long probe(byte[] in, boolean prefixed, boolean whole) {
    int at = 0;
    for (int n = 0; n < PROBE_MESSAGES && at < in.length; n++) {
      int start = prefixed ? at + 2 : at;
      if (start >= in.length) {
        return whole ? at : -1;
      }
      int len = Itch.length(in[start]);
      if (len == 0) {
        return start;
      }
      if (start + len > in.length) {
        return whole ? start : -1;
      }
      at = start + len;
    }
    return -1;
  }

  private static ItchFile parseAll(byte[] in, boolean prefixed) {
    // First pass: count and validate; second: copy. Both over the input only, so a failure leaves nothing behind.
    int count = 0;
    long payload = 0;
    long matching = 0;
    long zero = 0;
    long wrong = 0;
    long[] byType = new long[128];
    boolean[] listed = new boolean[65536];
    int instruments = 0;
    int at = 0;
    while (at < in.length) {
      int start = at;
      if (prefixed) {
        if (at + 2 > in.length) {
          throw new ItchFormatException(at, "truncated length prefix (" + (in.length - at) + " byte left)");
        }
        start = at + 2;
        if (start >= in.length) {
          throw new ItchFormatException(at, "length prefix with no message after it");
        }
      }
      int type = in[start] & 0xff;
      int len = Itch.length(type);
      if (len == 0) {
        throw new ItchFormatException(start, "unknown message type " + Itch.describe(type));
      }
      if (start + len > in.length) {
        throw new ItchFormatException(start, "truncated message " + Itch.describe(type) + ": needs " + len
            + " bytes, " + (in.length - start) + " left");
      }
      if (prefixed) {
        int p = Itch.u16(in, at);
        if (p == len) {
          matching++;
        } else if (p == 0) {
          zero++;
        } else {
          wrong++;
        }
      }
      instruments = validate(in, start, type, listed, instruments);
      byType[type]++;
      count++;
      payload += len;
      at = start + len;
    }
    if (payload > Integer.MAX_VALUE - 16) {
      throw new ItchFormatException(0, "input too large: " + payload + " bytes of messages (limit 2 GiB)");
    }
    byte[] out = new byte[(int) payload];
    int[] offsets = new int[count];
    int w = 0;
    at = 0;
    for (int i = 0; i < count; i++) {
      int start = prefixed ? at + 2 : at;
      int len = Itch.length(in[start]);
      System.arraycopy(in, start, out, w, len);
      offsets[i] = w;
      w += len;
      at = start + len;
    }
    ItchFile.Framing framing = ItchFile.Framing.of(prefixed, matching, zero, wrong);
    return new ItchFile(out, offsets, framing, wrong, instruments, byType);
  }

  /** Checks the fields the workload relies on; returns the highest stock locate listed so far. */
  static int validate(byte[] m, int at, int type, boolean[] listed, int instruments) {
    int locate = Itch.u16(m, at + 1);
    switch (type) {
      case 'R' -> {
        if (locate == 0) {
          throw new ItchFormatException(at + 1, "stock directory message with stock locate 0");
        }
        listed[locate] = true;
        return Math.max(instruments, locate);
      }
      case 'A', 'F' -> {
        requireListed(listed, locate, at, type);
        requireRef(m, at + 11, "order reference number");
        requireSide(m, at + 19);
        requirePositiveShares(m, at + 20);
        requirePrice(m, at + 32);
      }
      case 'E', 'X' -> {
        requireListed(listed, locate, at, type);
        requireRef(m, at + 11, "order reference number");
        requireShares(m, at + 19);
      }
      case 'C' -> {
        requireListed(listed, locate, at, type);
        requireRef(m, at + 11, "order reference number");
        requireShares(m, at + 19);
        requirePrice(m, at + 32);
      }
      case 'D' -> {
        requireListed(listed, locate, at, type);
        requireRef(m, at + 11, "order reference number");
      }
      case 'U' -> {
        requireListed(listed, locate, at, type);
        requireRef(m, at + 11, "original order reference number");
        requireRef(m, at + 19, "new order reference number");
        requirePositiveShares(m, at + 27);
        requirePrice(m, at + 31);
      }
      case 'P' -> {
        requireListed(listed, locate, at, type);
        requireSide(m, at + 19);
        requireShares(m, at + 20);
        requirePrice(m, at + 32);
      }
      default -> {
        // Other types are skipped: their fixed length was checked, their contents are not used.
      }
    }
    return instruments;
  }

  private static void requireListed(boolean[] listed, int locate, int at, int type) {
    if (locate == 0 || !listed[locate]) {
      throw new ItchFormatException(at + 1, "message " + Itch.describe(type) + " for stock locate " + locate
          + " that no stock directory (R) message listed before it");
    }
  }

  /**
   * Order references are any 64-bit value (0 included: the specification reserves none) but 2^64-1, which the
   * books' tables cannot hold: they key orders by the reference plus one, 0 marking an empty slot.
   */
  private static void requireRef(byte[] m, int at, String what) {
    if (Itch.u64(m, at) == -1L) {
      throw new ItchFormatException(at, what + " is 2^64-1, which the books cannot hold");
    }
  }

  private static void requireSide(byte[] m, int at) {
    if (m[at] != 'B' && m[at] != 'S') {
      throw new ItchFormatException(at, "buy/sell indicator is " + Itch.describe(m[at]) + ", not 'B' or 'S'");
    }
  }

  private static void requireShares(byte[] m, int at) {
    if (Itch.u32(m, at) > Integer.MAX_VALUE) {
      throw new ItchFormatException(at, "share count " + Itch.u32(m, at) + " above 2^31-1");
    }
  }

  private static void requirePositiveShares(byte[] m, int at) {
    requireShares(m, at);
    if (Itch.u32(m, at) == 0) {
      throw new ItchFormatException(at, "share count is 0");
    }
  }

  private static void requirePrice(byte[] m, int at) {
    if (Itch.u32(m, at) > Integer.MAX_VALUE) {
      throw new ItchFormatException(at, "price " + Itch.u32(m, at) + " (1/10000 $) above 2^31-1");
    }
  }
}
