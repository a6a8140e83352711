package io.gitm.workloads.hft;

import static io.gitm.workloads.hft.LobLayout.DEC;
import static io.gitm.workloads.hft.LobLayout.FEAT;
import static io.gitm.workloads.hft.LobLayout.TOP;

import io.gitm.device.KernelArgs;
import java.nio.ByteBuffer;

/**
 * The emulation of {@code lob_book}: each instrument's messages of the batch, in routed order, applied to its order
 * table (open addressing on the order reference, deletion by backward shift) and its sorted price levels; after each
 * input batch its top 10 levels a side and its counters are written out. Errors are sticky bits per instrument.
 */
final class LobBook {
  private final ByteBuffer dec;
  private final ByteBuffer perm;
  private final ByteBuffer ord;
  private final ByteBuffer lv;
  private final ByteBuffer top;
  private final ByteBuffer feat;
  private final int n;
  private final int k;
  private final int logOC;
  private final int cap;
  private final int oc;
  /** The instrument being updated, and the byte offsets of its order table and of its two sides' levels. */
  private int i;
  private int t;
  private final int[] lbase = new int[2];
  /** Its levels a side, live orders and error bits. */
  private final int[] nl = new int[2];
  private int lc;
  private int e;
  /** Its counters of the present input batch: traded volume, messages and unknown order references. */
  private long tv;
  private int msgs;
  private int unk;

  private LobBook(KernelArgs a) {
    dec = a.memory(0);
    perm = a.memory(1);
    ord = a.memory(4);
    lv = a.memory(5);
    top = a.memory(9);
    feat = a.memory(10);
    n = a.i32(11);
    k = a.i32(12);
    logOC = a.i32(13);
    cap = a.i32(14);
    oc = 1 << logOC;
  }

  /** The book update of instruments 0 .. limit-1. */
  static void run(KernelArgs a, int limit) {
    LobBook book = new LobBook(a);
    ByteBuffer starts = a.memory(2);
    ByteBuffer totals = a.memory(3);
    ByteBuffer nlv = a.memory(6);
    ByteBuffer live = a.memory(7);
    ByteBuffer err = a.memory(8);
    for (int i = 0; i < limit; i++) {
      book.i = i;
      book.t = i * book.oc * 16;
      book.lbase[0] = (2 * i) * book.cap * 8;
      book.lbase[1] = (2 * i + 1) * book.cap * 8;
      book.nl[0] = nlv.getInt(8 * i);
      book.nl[1] = nlv.getInt(8 * i + 4);
      book.lc = live.getInt(4 * i);
      book.e = err.getInt(4 * i);
      book.replay(starts.getInt(4 * i), totals.getInt(4 * i));
      nlv.putInt(8 * i, book.nl[0]);
      nlv.putInt(8 * i + 4, book.nl[1]);
      live.putInt(4 * i, book.lc);
      err.putInt(4 * i, book.e);
    }
  }

  /** Applies the instrument's {@code cnt} messages from routed position {@code b}, writing out each input batch. */
  private void replay(int b, int cnt) {
    tv = 0;
    msgs = 0;
    unk = 0;
    int cur = 0;
    for (int q = 0; q <= cnt; q++) {
      int sub = k;
      int d = 0;
      if (q < cnt) {
        d = perm.getInt(4 * (b + q)) * DEC * 4;
        sub = dec.getInt(d + 12);
      }
      while (cur < sub) {
        writeOut(cur);
        cur++;
      }
      if (q == cnt) {
        break;
      }
      apply(d);
    }
  }

  /** Writes the top levels and counters after input batch {@code cur}, and starts the next batch's counters. */
  private void writeOut(int cur) {
    int o = (cur * n + i) * TOP * 4;
    for (int l = 0; l < 10; l++) {
      top.putInt(o + 8 * l, l < nl[0] ? lv.getInt(lbase[0] + 8 * l) : 0);
      top.putInt(o + 8 * l + 4, l < nl[0] ? lv.getInt(lbase[0] + 8 * l + 4) : 0);
      top.putInt(o + 80 + 8 * l, l < nl[1] ? lv.getInt(lbase[1] + 8 * l) : 0);
      top.putInt(o + 84 + 8 * l, l < nl[1] ? lv.getInt(lbase[1] + 8 * l + 4) : 0);
    }
    int f = (cur * n + i) * FEAT * 8;
    feat.putLong(f + 8 * LobLayout.TRADE_VOLUME, tv);
    feat.putLong(f + 8 * LobLayout.MESSAGES, msgs);
    feat.putLong(f + 8 * LobLayout.UNKNOWN_REFS, unk);
    feat.putLong(f + 8 * LobLayout.LIVE_ORDERS, lc);
    feat.putLong(f + 8 * LobLayout.ERRORS, e);
    tv = 0;
    msgs = 0;
    unk = 0;
  }

  /** Applies the decoded message at byte offset {@code d}. */
  private void apply(int d) {
    msgs++;
    int type = dec.getInt(d + 4);
    int shares = dec.getInt(d + 16);
    int price = dec.getInt(d + 20);
    long ref = dec.getLong(d + 24);
    if (type == 'P') {
      tv += shares;
      return;
    }
    int s = find(ord, t, logOC, ref);
    int side = dec.getInt(d + 8) > 0 ? 0 : 1;
    boolean add = type == 'A' || type == 'F';
    if (add) {
      if (s >= 0) {
        e |= LobLayout.ERR_DUPLICATE;
        return;
      }
    } else if (s < 0) {
      unk++;
      return;
    }
    if (!add) {
      side = reduce(type, shares, s);
      if (type != 'U') {
        return;
      }
      ref = dec.getLong(d + 32);
      if (find(ord, t, logOC, ref) >= 0) {
        e |= LobLayout.ERR_DUPLICATE;
        return;
      }
    }
    insert(ref, price, shares, side);
  }

  /**
   * Takes shares off the order in slot {@code s}: those executed or cancelled, or all of them (delete, and the old
   * order of a replace); an order left with none is erased. Returns the order's side.
   */
  private int reduce(int type, int shares, int s) {
    int signedQty = ord.getInt(t + 16 * s + 12);
    int op = ord.getInt(t + 16 * s + 8);
    int oside = signedQty > 0 ? 0 : 1;
    int rem = signedQty > 0 ? signedQty : -signedQty;
    int x = rem;
    if (type == 'E' || type == 'C' || type == 'X') {
      x = Math.min(shares, rem);
    }
    if (type == 'E' || type == 'C') {
      tv += x;
    }
    e |= levelAdd(lv, lbase[oside], nl, oside, cap, oside, op, -x);
    rem -= x;
    if (rem == 0) {
      erase(ord, t, logOC, s);
      lc--;
    } else {
      ord.putInt(t + 16 * s + 12, oside == 0 ? rem : -rem);
    }
    return oside;
  }

  /** Adds a new order to the table (when it has room) and its shares to its price level. */
  private void insert(long ref, int price, int shares, int side) {
    if (lc >= oc - 1) {
      e |= LobLayout.ERR_ORDERS_FULL;
      return;
    }
    int mask = oc - 1;
    int p = home(ref, logOC);
    while (ord.getLong(t + 16 * p) != 0) {
      p = (p + 1) & mask;
    }
    ord.putLong(t + 16 * p, ref);
    ord.putInt(t + 16 * p + 8, price);
    ord.putInt(t + 16 * p + 12, side == 0 ? shares : -shares);
    lc++;
    e |= levelAdd(lv, lbase[side], nl, side, cap, side, price, shares);
  }

  private static int home(long ref, int logOC) {
    return (int) ((ref * 0x9E3779B97F4A7C15L) >>> (64 - logOC));
  }

  /** The order table of one instrument: slot s at base + 16 s (ref, price, signed shares). */
  private static int find(ByteBuffer t, int base, int logOC, long ref) {
    int mask = (1 << logOC) - 1;
    int s = home(ref, logOC);
    for (int probes = 0; probes <= mask; probes++) {
      long r = t.getLong(base + 16 * s);
      if (r == ref) {
        return s;
      }
      if (r == 0) {
        return -1;
      }
      s = (s + 1) & mask;
    }
    return -1;
  }

  private static void erase(ByteBuffer t, int base, int logOC, int j) {
    int mask = (1 << logOC) - 1;
    for (;;) {
      t.putLong(base + 16 * j, 0);
      t.putLong(base + 16 * j + 8, 0);
      int k = j;
      boolean moved = false;
      for (;;) {
        k = (k + 1) & mask;
        long r = t.getLong(base + 16 * k);
        if (r == 0) {
          return;
        }
        int h = home(r, logOC);
        boolean stays = j <= k ? (h > j && h <= k) : (h > j || h <= k);
        if (!stays) {
          t.putLong(base + 16 * j, r);
          t.putLong(base + 16 * j + 8, t.getLong(base + 16 * k + 8));
          j = k;
          moved = true;
          break;
        }
      }
      if (!moved) {
        return;
      }
    }
  }

  /** Sorted levels of one side at byte offset {@code base}: (price, qty) pairs; returns error bits. */
  private static int levelAdd(ByteBuffer lv, int base, int[] count, int sideIdx, int cap, int side, int price,
      int delta) {
    int c = count[sideIdx];
    int p = 0;
    if (side == 0) {
      while (p < c && lv.getInt(base + 8 * p) > price) {
        p++;
      }
    } else {
      while (p < c && lv.getInt(base + 8 * p) < price) {
        p++;
      }
    }
    if (p < c && lv.getInt(base + 8 * p) == price) {
      long q = (long) lv.getInt(base + 8 * p + 4) + delta;
      if (q > Integer.MAX_VALUE) {
        return LobLayout.ERR_OVERFLOW;
      }
      if (q < 0) {
        return LobLayout.ERR_INCONSISTENT;
      }
      if (q == 0) {
        for (int u = p; u < c - 1; u++) {
          lv.putInt(base + 8 * u, lv.getInt(base + 8 * u + 8));
          lv.putInt(base + 8 * u + 4, lv.getInt(base + 8 * u + 12));
        }
        count[sideIdx] = c - 1;
      } else {
        lv.putInt(base + 8 * p + 4, (int) q);
      }
      return 0;
    }
    if (delta < 0) {
      return LobLayout.ERR_INCONSISTENT;
    }
    if (delta == 0) {
      return 0;
    }
    if (c == cap) {
      return LobLayout.ERR_LEVELS_FULL;
    }
    for (int u = c; u > p; u--) {
      lv.putInt(base + 8 * u, lv.getInt(base + 8 * u - 8));
      lv.putInt(base + 8 * u + 4, lv.getInt(base + 8 * u - 4));
    }
    lv.putInt(base + 8 * p, price);
    lv.putInt(base + 8 * p + 4, delta);
    count[sideIdx] = c + 1;
    return 0;
  }
}
