package io.gitm.workloads.hft;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A fully read and validated ITCH 5.0 file: its messages without framing, back to back in {@code messages},
 * message {@code i} starting at {@code offsets[i]} (its length fixed by its type).
 *
 * @param framing how the file framed its messages
 * @param wrongPrefixes messages whose 2-byte length prefix was neither their type's length nor zero
 * @param instruments the highest stock locate given a stock directory (R) message; book messages use 1..instruments
 */
record ItchFile(byte[] messages, int[] offsets, Framing framing, long wrongPrefixes, int instruments,
    long[] countsByType) implements ItchSource {

  /** How a file frames messages. */
  enum Framing {
    /** Each message preceded by a 2-byte big-endian length equal to its type's fixed length (Nasdaq's files). */
    LENGTH_PREFIXED,
    /** Each message preceded by a 2-byte prefix that is zero. */
    ZERO_PREFIXED,
    /** Each message preceded by a 2-byte prefix, some of them wrong: messages were read by their types' lengths. */
    PREFIXED_MIXED,
    /** Messages back to back without prefixes. */
    UNFRAMED;

    /** The framing of a file read with prefixes or not, from how many prefixes matched, were zero or were wrong. */
    static Framing of(boolean prefixed, long matching, long zero, long wrong) {
      return !prefixed ? UNFRAMED : wrong == 0 && zero == 0 ? LENGTH_PREFIXED
          : wrong == 0 && matching == 0 ? ZERO_PREFIXED : PREFIXED_MIXED;
    }
  }

  @Override
  public int count() {
    return offsets.length;
  }

  @Override
  public Cursor cursor() {
    return new Cursor() {
      private int next;

      @Override
      public int next(int m, ByteBuffer dst, int[] out) {
        int to = next + m;
        int from = offsets[next];
        int bytes = (to < offsets.length ? offsets[to] : messages.length) - from;
        dst.put(0, messages, from, bytes);
        for (int j = 0; j < m; j++) {
          out[j] = offsets[next + j] - from;
        }
        next = to;
        return bytes;
      }

      @Override
      public void close() {
      }
    };
  }

  int type(int i) {
    return messages[offsets[i]] & 0xff;
  }

  long count(char type) {
    return countsByType[type];
  }

  /** One line describing the file, e.g. for logs. */
  String summary() {
    return count() + " messages, " + instruments + " instruments, framing " + framing
        + (wrongPrefixes > 0 ? " (" + wrongPrefixes + " wrong length prefixes)" : "");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ItchFile f && Arrays.equals(f.messages, messages) && Arrays.equals(f.offsets, offsets)
        && f.framing == framing;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(offsets);
  }

  @Override
  public String toString() {
    return "ItchFile[" + summary() + "]";
  }
}
