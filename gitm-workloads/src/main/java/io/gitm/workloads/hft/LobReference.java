package io.gitm.workloads.hft;

import static io.gitm.workloads.hft.LobLayout.FEAT;
import static io.gitm.workloads.hft.LobLayout.HID;
import static io.gitm.workloads.hft.LobLayout.IN;
import static io.gitm.workloads.hft.LobLayout.TOP;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The whole hft-lob pipeline in plain Java, written for clarity rather than speed: hash maps of orders, sorted maps
 * of price levels, the features and the MLP from their definitions. The GPU's output must equal it (books and
 * features exactly, signals within the workload's tolerance).
 */
final class LobReference {
  private final int instruments;
  private final float[] w;
  private final Book[] books;
  private final long[][] state;

  private static final class Book {
    final Map<Long, long[]> orders = new HashMap<>(); // ref -> {price, signed shares (+ buy)}
    final NavigableMap<Integer, Long> bids = new TreeMap<>(Collections.reverseOrder());
    final NavigableMap<Integer, Long> asks = new TreeMap<>();
    long tradeVolume;
    long messages;
    long unknown;

    NavigableMap<Integer, Long> side(boolean buy) {
      return buy ? bids : asks;
    }
  }

  LobReference(int instruments, long weightSeed) {
    this.instruments = instruments;
    this.w = LobLayout.weights(weightSeed);
    books = new Book[instruments];
    state = new long[instruments][6];
    for (int i = 0; i < instruments; i++) {
      books[i] = new Book();
    }
  }

  /** Runs every input batch of {@code batchMessages} messages of {@code file} and returns the outputs. */
  static List<BatchOutput> run(ItchFile file, int batchMessages, long weightSeed) {
    LobReference ref = new LobReference(file.instruments(), weightSeed);
    List<BatchOutput> out = new ArrayList<>();
    for (int from = 0; from < file.count(); from += batchMessages) {
      out.add(ref.batch(file, from, Math.min(file.count(), from + batchMessages)));
    }
    return out;
  }

  BatchOutput batch(ItchFile file, int from, int to) {
    byte[] m = file.messages();
    for (int j = from; j < to; j++) {
      int at = file.offsets()[j];
      char type = (char) (m[at] & 0xff);
      if (!Itch.isBookType(type)) {
        continue;
      }
      int locate = Itch.u16(m, at + 1);
      if (locate < 1 || locate > instruments) {
        continue;
      }
      apply(books[locate - 1], type, m, at);
    }
    int[] top = new int[instruments * TOP];
    long[] feat = new long[instruments * FEAT];
    float[] sig = new float[instruments];
    for (int i = 0; i < instruments; i++) {
      Book b = books[i];
      snapshot(b.bids, top, i * TOP);
      snapshot(b.asks, top, i * TOP + 20);
      features(i, top, feat);
      sig[i] = mlp(feat, i * FEAT);
      b.tradeVolume = 0;
      b.messages = 0;
      b.unknown = 0;
    }
    return new BatchOutput(top, feat, sig);
  }

  private static void apply(Book b, char type, byte[] m, int at) {
    b.messages++;
    long ref = Itch.u64(m, at + 11);
    switch (type) {
      case 'A', 'F' -> add(b, ref, m[at + 19] == 'B', (int) Itch.u32(m, at + 32), (int) Itch.u32(m, at + 20));
      case 'E', 'C' -> {
        long[] o = b.orders.get(ref);
        if (o == null) {
          b.unknown++;
        } else {
          long x = Math.min(Itch.u32(m, at + 19), Math.abs(o[1]));
          b.tradeVolume += x;
          reduce(b, ref, o, x);
        }
      }
      case 'X' -> {
        long[] o = b.orders.get(ref);
        if (o == null) {
          b.unknown++;
        } else {
          reduce(b, ref, o, Math.min(Itch.u32(m, at + 19), Math.abs(o[1])));
        }
      }
      case 'D' -> {
        long[] o = b.orders.get(ref);
        if (o == null) {
          b.unknown++;
        } else {
          reduce(b, ref, o, Math.abs(o[1]));
        }
      }
      case 'U' -> {
        long[] o = b.orders.get(ref);
        if (o == null) {
          b.unknown++;
        } else {
          boolean buy = o[1] > 0;
          reduce(b, ref, o, Math.abs(o[1]));
          add(b, Itch.u64(m, at + 19), buy, (int) Itch.u32(m, at + 31), (int) Itch.u32(m, at + 27));
        }
      }
      case 'P' -> b.tradeVolume += Itch.u32(m, at + 20);
      default -> throw new IllegalStateException("not a book message: " + type);
    }
  }

  private static void add(Book b, long ref, boolean buy, int price, int shares) {
    if (b.orders.containsKey(ref)) {
      throw new IllegalStateException("duplicate order reference " + ref);
    }
    b.orders.put(ref, new long[] {price, buy ? shares : -shares});
    b.side(buy).merge(price, (long) shares, Long::sum);
  }

  private static void reduce(Book b, long ref, long[] o, long shares) {
    boolean buy = o[1] > 0;
    int price = (int) o[0];
    NavigableMap<Integer, Long> side = b.side(buy);
    long left = side.get(price) - shares;
    if (left == 0) {
      side.remove(price);
    } else {
      side.put(price, left);
    }
    long rem = Math.abs(o[1]) - shares;
    if (rem == 0) {
      b.orders.remove(ref);
    } else {
      o[1] = buy ? rem : -rem;
    }
  }

  private static void snapshot(NavigableMap<Integer, Long> side, int[] top, int at) {
    int l = 0;
    for (Map.Entry<Integer, Long> e : side.entrySet()) {
      if (l == LobLayout.TOP_LEVELS) {
        break;
      }
      top[at + 2 * l] = e.getKey();
      top[at + 2 * l + 1] = Math.toIntExact(e.getValue());
      l++;
    }
  }

  private void features(int i, int[] top, long[] feat) {
    Book b = books[i];
    long[] st = state[i];
    int t = i * TOP;
    int f = i * FEAT;
    long bid = top[t];
    long bidSize = top[t + 1];
    long ask = top[t + 20];
    long askSize = top[t + 21];
    long depthBid = 0;
    long depthAsk = 0;
    for (int l = 0; l < LobLayout.TOP_LEVELS; l++) {
      depthBid += top[t + 2 * l + 1];
      depthAsk += top[t + 21 + 2 * l];
    }
    boolean twoSided = bidSize > 0 && askSize > 0;
    long mid2 = twoSided ? bid + ask : 0;
    // Order-flow imbalance (Cont, Kukanov, Stoikov) between the previous batch's best quotes and these.
    long ofi = (bid >= st[0] ? bidSize : 0) - (bid <= st[0] ? st[2] : 0) - (ask <= st[1] ? askSize : 0)
        + (ask >= st[1] ? st[3] : 0);
    long ret = mid2 > 0 && st[4] > 0 ? mid2 - st[4] : 0;
    long var = (st[5] * 15 + ret * ret) / 16;
    feat[f + LobLayout.BEST_BID] = bid;
    feat[f + LobLayout.BEST_ASK] = ask;
    feat[f + LobLayout.BID_SIZE] = bidSize;
    feat[f + LobLayout.ASK_SIZE] = askSize;
    feat[f + LobLayout.SPREAD] = twoSided ? ask - bid : 0;
    feat[f + LobLayout.MID2] = mid2;
    feat[f + LobLayout.MICRO] = twoSided ? (bid * askSize + ask * bidSize) / (bidSize + askSize) : 0;
    feat[f + LobLayout.DEPTH_BID] = depthBid;
    feat[f + LobLayout.DEPTH_ASK] = depthAsk;
    feat[f + LobLayout.OFI] = ofi;
    feat[f + LobLayout.TRADE_VOLUME] = b.tradeVolume;
    feat[f + LobLayout.MESSAGES] = b.messages;
    feat[f + LobLayout.EWMA_VAR] = var;
    feat[f + LobLayout.UNKNOWN_REFS] = b.unknown;
    feat[f + LobLayout.LIVE_ORDERS] = b.orders.size();
    feat[f + LobLayout.ERRORS] = 0;
    st[0] = bid;
    st[1] = ask;
    st[2] = bidSize;
    st[3] = askSize;
    st[4] = mid2;
    st[5] = var;
  }

  /** The 8-16-1 MLP: inputs normalized and clamped to [-10, 10], ReLU hidden layer, softsign output. */
  private float mlp(long[] feat, int f) {
    long mid2 = feat[f + LobLayout.MID2];
    long bs = feat[f + LobLayout.BID_SIZE];
    long as = feat[f + LobLayout.ASK_SIZE];
    long db = feat[f + LobLayout.DEPTH_BID];
    long da = feat[f + LobLayout.DEPTH_ASK];
    float mid = mid2;
    float[] x = {
        mid2 > 0 ? (float) (feat[f + LobLayout.SPREAD] * 20000) / mid : 0f, // spread, bps
        bs + as > 0 ? (float) (bs - as) / (float) (bs + as) : 0f, // top-of-book imbalance
        db + da > 0 ? (float) (db - da) / (float) (db + da) : 0f, // depth imbalance
        mid2 > 0 ? (float) ((2 * feat[f + LobLayout.MICRO] - mid2) * 20000) / mid : 0f, // micro-price offset, bps
        (float) feat[f + LobLayout.OFI] / (float) (db + da + 1),
        (float) feat[f + LobLayout.TRADE_VOLUME] / (float) (db + da + 1),
        mid2 > 0 ? (float) Math.sqrt((float) feat[f + LobLayout.EWMA_VAR]) * 20000f / mid : 0f, // volatility, bps
        (float) feat[f + LobLayout.MESSAGES] / 100f};
    float out = w[HID * IN + 2 * HID];
    for (int h = 0; h < HID; h++) {
      float a = w[HID * IN + h];
      for (int u = 0; u < IN; u++) {
        a = Math.fma(w[h * IN + u], Math.clamp(x[u], -10f, 10f), a);
      }
      out = Math.fma(w[HID * IN + HID + h], Math.max(a, 0f), out);
    }
    return out / (1f + Math.abs(out));
  }
}
