package io.gitm.workloads.hft;

import java.util.Arrays;

/**
 * A light replay of the books, as the device's book kernel keeps them, to learn the most price levels a side and
 * the most live orders any one book holds at once: what its fixed-size tables must be sized for. Orders are added
 * by add and replace messages and reduced by executions, cancels, deletes and replaces; a duplicate reference is
 * ignored and an unknown one skipped, as the kernel does. Orders and levels live in two open-addressing tables of
 * primitives (no object per order), so that a scan keeps up with reading a file of billions of messages.
 */
final class ItchDepth {
  /** Live orders, keyed by (stock locate, reference): price and signed shares (+ buy). */
  private final Orders orders = new Orders();
  /** Shares at each (stock locate, side, price) with any. */
  private final Levels levels = new Levels();
  /** Distinct prices per (locate, side), and live orders per locate. */
  private final int[] sideLevels = new int[2 * 65536];
  private final int[] live = new int[65536];
  private int maxLevels;
  private int maxLive;
  /** Where the most levels were first reached: the instrument and the message's offset in the stream. */
  private int levelsLocate;
  private long levelsAt;
  private long at;

  /**
   * Applies book message {@code m} (type byte at index 0) to instrument {@code locate}'s book.
   *
   * @param offset the message's offset in the stream, for saying where a size was reached
   */
  void apply(int locate, int type, byte[] m, long offset) {
    at = offset;
    long ref = Itch.u64(m, 11);
    switch (type) {
      case 'P' -> {
        // a trade of a non-displayed order changes no book
      }
      case 'A', 'F' -> add(locate, ref, m[19] == 'B', (int) Itch.u32(m, 32), Itch.u32(m, 20));
      case 'E', 'C', 'X' -> reduce(locate, ref, Itch.u32(m, 19), false);
      case 'D' -> reduce(locate, ref, 0, true);
      case 'U' -> {
        int s = orders.find(locate, ref);
        if (s >= 0) {
          boolean buy = orders.shares[s] > 0;
          reduce(locate, ref, 0, true);
          add(locate, Itch.u64(m, 19), buy, (int) Itch.u32(m, 31), Itch.u32(m, 27));
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

  private void add(int locate, long ref, boolean buy, int price, long shares) {
    if (orders.find(locate, ref) >= 0) {
      return;
    }
    orders.put(locate, ref, price, buy ? shares : -shares);
    int side = 2 * locate + (buy ? 0 : 1);
    if (levels.add(Levels.key(locate, buy, price), shares)) {
      if (++sideLevels[side] > maxLevels) {
        maxLevels = sideLevels[side];
        levelsLocate = locate;
        levelsAt = at;
      }
    }
    maxLive = Math.max(maxLive, ++live[locate]);
  }

  private void reduce(int locate, long ref, long shares, boolean all) {
    int s = orders.find(locate, ref);
    if (s < 0) {
      return;
    }
    long signed = orders.shares[s];
    boolean buy = signed > 0;
    long rem = Math.abs(signed);
    long x = all ? rem : Math.min(shares, rem);
    if (levels.add(Levels.key(locate, buy, orders.price[s]), -x)) {
      sideLevels[2 * locate + (buy ? 0 : 1)]--;
    }
    rem -= x;
    if (rem == 0) {
      orders.remove(s);
      live[locate]--;
    } else {
      orders.shares[s] = buy ? rem : -rem;
    }
  }

  private static int hash(long a, long b) {
    long h = (a * 0x9E3779B97F4A7C15L) ^ (b * 0xC2B2AE3D27D4EB4FL);
    return (int) (h ^ (h >>> 29));
  }

  /** Open addressing on (locate, ref) with linear probing and backward-shift deletion; grows at half full. */
  private static final class Orders {
    int[] locate = new int[1 << 16]; // 0: empty (book messages have a locate of 1 or more)
    long[] ref = new long[1 << 16];
    int[] price = new int[1 << 16];
    long[] shares = new long[1 << 16];
    int size;

    int find(int l, long r) {
      int mask = locate.length - 1;
      for (int s = hash(l, r) & mask; locate[s] != 0; s = (s + 1) & mask) {
        if (locate[s] == l && ref[s] == r) {
          return s;
        }
      }
      return -1;
    }

    void put(int l, long r, int p, long q) {
      if (2 * (size + 1) > locate.length) {
        grow();
      }
      int mask = locate.length - 1;
      int s = hash(l, r) & mask;
      while (locate[s] != 0) {
        s = (s + 1) & mask;
      }
      locate[s] = l;
      ref[s] = r;
      price[s] = p;
      shares[s] = q;
      size++;
    }

    void remove(int j) {
      int mask = locate.length - 1;
      locate[j] = 0;
      size--;
      for (int k = (j + 1) & mask; locate[k] != 0; k = (k + 1) & mask) {
        int h = hash(locate[k], ref[k]) & mask;
        boolean stays = j <= k ? (h > j && h <= k) : (h > j || h <= k);
        if (!stays) {
          locate[j] = locate[k];
          ref[j] = ref[k];
          price[j] = price[k];
          shares[j] = shares[k];
          locate[k] = 0;
          j = k;
        }
      }
    }

    private void grow() {
      int[] ol = locate;
      long[] or = ref;
      int[] op = price;
      long[] oq = shares;
      int n = ol.length * 2;
      locate = new int[n];
      ref = new long[n];
      price = new int[n];
      shares = new long[n];
      size = 0;
      for (int i = 0; i < ol.length; i++) {
        if (ol[i] != 0) {
          put(ol[i], or[i], op[i], oq[i]);
        }
      }
    }
  }

  /** Shares by (locate, side, price), open addressing on the packed key; a level at zero shares is removed. */
  private static final class Levels {
    private static final long EMPTY = -1L;
    long[] key = filled(1 << 16);
    long[] qty = new long[1 << 16];
    int size;

    /** The key of a level: 16 bits of locate, 1 of side, 32 of price (at most 2^31-1, as the reader checks). */
    static long key(int locate, boolean buy, int price) {
      return ((long) locate << 33) | (buy ? 0L : 1L << 32) | (price & 0xffffffffL);
    }

    /** Adds {@code delta} shares at {@code k}; true when that makes the level appear or vanish. */
    boolean add(long k, long delta) {
      int mask = key.length - 1;
      int s = hash(k, 0) & mask;
      while (key[s] != EMPTY) {
        if (key[s] == k) {
          qty[s] += delta;
          if (qty[s] <= 0) {
            remove(s);
            return true;
          }
          return false;
        }
        s = (s + 1) & mask;
      }
      if (delta <= 0) {
        return false;
      }
      if (2 * (size + 1) > key.length) {
        grow();
        return add(k, delta);
      }
      key[s] = k;
      qty[s] = delta;
      size++;
      return true;
    }

    private void remove(int j) {
      int mask = key.length - 1;
      key[j] = EMPTY;
      size--;
      for (int k = (j + 1) & mask; key[k] != EMPTY; k = (k + 1) & mask) {
        int h = hash(key[k], 0) & mask;
        boolean stays = j <= k ? (h > j && h <= k) : (h > j || h <= k);
        if (!stays) {
          key[j] = key[k];
          qty[j] = qty[k];
          key[k] = EMPTY;
          j = k;
        }
      }
    }

    private void grow() {
      long[] ok = key;
      long[] oq = qty;
      key = filled(ok.length * 2);
      qty = new long[ok.length * 2];
      size = 0;
      for (int i = 0; i < ok.length; i++) {
        if (ok[i] != EMPTY) {
          add(ok[i], oq[i]);
        }
      }
    }

    private static long[] filled(int n) {
      long[] a = new long[n];
      Arrays.fill(a, EMPTY);
      return a;
    }
  }
}
