package io.gitm.workloads.hft;

import java.util.HashMap;
import java.util.Map;

/**
 * A light replay of the books, as the device's book kernel keeps them, to learn the most price levels a side and
 * the most live orders any one book holds at once: what its fixed-size tables must be sized for. Orders are added
 * by add and replace messages and reduced by executions, cancels, deletes and replaces; a duplicate reference is
 * ignored and an unknown one skipped, as the kernel does.
 */
final class ItchDepth {
  /** Per instrument (by stock locate): live orders by reference, and each side's shares by price. */
  private final Map<Integer, Book> books = new HashMap<>();
  private int maxLevels;
  private int maxLive;
  /** Where the most levels were first reached: the instrument and the message's offset in the stream. */
  private int levelsLocate;
  private long levelsAt;
  private long at;

  private static final class Book {
    final Map<Long, long[]> orders = new HashMap<>(); // ref -> {price, signed shares (+ buy)}
    @SuppressWarnings("unchecked")
    final Map<Integer, long[]>[] sides = new Map[] {new HashMap<>(), new HashMap<>()};
  }

  /**
   * Applies book message {@code m} (type byte at index 0) to instrument {@code locate}'s book.
   *
   * @param offset the message's offset in the stream, for saying where a size was reached
   */
  void apply(int locate, int type, byte[] m, long offset) {
    at = offset;
    if (type == 'P') {
      return;
    }
    Book b = books.computeIfAbsent(locate, l -> new Book());
    long ref = Itch.u64(m, 11);
    switch (type) {
      case 'A', 'F' -> add(locate, b, ref, m[19] == 'B', (int) Itch.u32(m, 32), Itch.u32(m, 20));
      case 'E', 'C', 'X' -> reduce(b, ref, Itch.u32(m, 19), false);
      case 'D' -> reduce(b, ref, 0, true);
      case 'U' -> {
        long[] o = b.orders.get(ref);
        if (o != null) {
          boolean buy = o[1] > 0;
          reduce(b, ref, 0, true);
          add(locate, b, Itch.u64(m, 19), buy, (int) Itch.u32(m, 31), Itch.u32(m, 27));
        }
      }
      default -> throw new IllegalStateException("not a book message: " + (char) type);
    }
  }

  int maxLevels() {
    return maxLevels;
  }

  int maxLiveOrders() {
    return maxLive;
  }

  /** The stock locate whose book first held {@link #maxLevels()} levels a side. */
  int levelsLocate() {
    return levelsLocate;
  }

  /** The offset of the message at which it did. */
  long levelsAt() {
    return levelsAt;
  }

  private void add(int locate, Book b, long ref, boolean buy, int price, long shares) {
    if (b.orders.containsKey(ref)) {
      return;
    }
    b.orders.put(ref, new long[] {price, buy ? shares : -shares});
    Map<Integer, long[]> side = b.sides[buy ? 0 : 1];
    side.computeIfAbsent(price, p -> new long[1])[0] += shares;
    if (side.size() > maxLevels) {
      maxLevels = side.size();
      levelsLocate = locate;
      levelsAt = at;
    }
    maxLive = Math.max(maxLive, b.orders.size());
  }

  private static void reduce(Book b, long ref, long shares, boolean all) {
    long[] o = b.orders.get(ref);
    if (o == null) {
      return;
    }
    long rem = Math.abs(o[1]);
    long x = all ? rem : Math.min(shares, rem);
    Map<Integer, long[]> side = b.sides[o[1] > 0 ? 0 : 1];
    long[] q = side.get((int) o[0]);
    q[0] -= x;
    if (q[0] <= 0) {
      side.remove((int) o[0]);
    }
    rem -= x;
    if (rem == 0) {
      b.orders.remove(ref);
    } else {
      o[1] = o[1] > 0 ? rem : -rem;
    }
  }
}
