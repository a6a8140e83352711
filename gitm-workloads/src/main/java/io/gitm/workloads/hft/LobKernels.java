package io.gitm.workloads.hft;

import static io.gitm.workloads.hft.LobLayout.DEC;
import static io.gitm.workloads.hft.LobLayout.FEAT;
import static io.gitm.workloads.hft.LobLayout.HID;
import static io.gitm.workloads.hft.LobLayout.IN;
import static io.gitm.workloads.hft.LobLayout.STATE;
import static io.gitm.workloads.hft.LobLayout.TOP;
import static io.gitm.workloads.kit.WorkModels.i;

import io.gitm.device.DeviceMemory;
import io.gitm.device.KernelArgs;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.trace.Precision;
import io.gitm.trace.Work;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The kernels of {@code /kernels/lob.cu}: for each, its work model (a function of the launch and its arguments)
 * and a host emulation with exactly the CUDA code's effect on memory.
 */
final class LobKernels {
  private LobKernels() {
  }

  static final String DECODE = "lob_decode";
  static final String ROUTE_HIST = "lob_route_hist";
  static final String ROUTE_CHUNKS = "lob_route_chunks";
  static final String ROUTE_SCAN = "lob_route_scan";
  static final String ROUTE_SCATTER = "lob_route_scatter";
  static final String BOOK = "lob_book";
  /** Variant "warp" of {@link #BOOK}: one warp per instrument, the same effect on memory. */
  static final String BOOK_WARP = "lob_book_warp";
  /** The kernel family levers choose a variant for, and its variants (the first is the default). */
  static final String BOOK_FAMILY = "lob_book";
  static final List<String> BOOK_VARIANTS = List.of("thread", "warp");
  static final String FEATURES = "lob_features";
  static final String MLP = "lob_mlp";

  /** Kernel names in launch order. */
  static final List<String> ORDER = List.of(DECODE, ROUTE_HIST, ROUTE_CHUNKS, ROUTE_SCAN, ROUTE_SCATTER, BOOK,
      FEATURES, MLP);

  static final KernelModule MODULE = new KernelModule("lob", "/kernels/lob.cu", List.of(
      new KernelDef(DECODE, LobKernels::decodeWork, LobKernels::decode),
      new KernelDef(ROUTE_HIST, LobKernels::histWork, LobKernels::hist),
      new KernelDef(ROUTE_CHUNKS, LobKernels::chunksWork, LobKernels::chunks),
      new KernelDef(ROUTE_SCAN, LobKernels::scanWork, LobKernels::scan),
      new KernelDef(ROUTE_SCATTER, LobKernels::scatterWork, LobKernels::scatter),
      new KernelDef(BOOK, LobKernels::bookWork, LobKernels::book),
      new KernelDef(BOOK_WARP, LobKernels::bookWarpWork, LobKernels::bookWarp),
      new KernelDef(FEATURES, LobKernels::featuresWork, LobKernels::features),
      new KernelDef(MLP, LobKernels::mlpWork, LobKernels::mlp)));

  // ---- work models: bytes each launch must move through device memory, integer or float operations it does ----

  /** lob_decode(in, offsetsAt, subAt, m, k, n, rawBytes, dec). */
  static Work decodeWork(LaunchConfig c, Object[] a) {
    long m = i(a, 3);
    // Chain: the message's offset, then its bytes (off-chip); the input-batch search walks k-1 starts (on-chip).
    return new Work(40.0 * m, Precision.INT32, i(a, 6) + 4 * m + 4L * (i(a, 4) + 1), 4L * DEC * m, 2,
        Math.max(0, i(a, 4) - 1));
  }

  /** lob_route_hist(dec, m, n, hist): reads each message's instrument, one atomic read-modify-write. */
  static Work histWork(LaunchConfig c, Object[] a) {
    long m = i(a, 1);
    // Chain: the decoded instrument, then the atomic on its counter (both off-chip; atomics resolve in L2).
    return new Work(m, Precision.INT32, 8 * m, 4 * m, 2, 0);
  }

  /** lob_route_chunks(hist, chunks, n, totals). */
  static Work chunksWork(LaunchConfig c, Object[] a) {
    long cells = (long) i(a, 1) * i(a, 2);
    // Chain: one load-add-store step per chunk down the instrument's column (stride n: a new line each step).
    return new Work(cells, Precision.INT32, 4 * cells, 4 * cells + 4L * i(a, 2), i(a, 1), 0);
  }

  /** lob_route_scan(totals, n, starts): reads totals twice. */
  static Work scanWork(LaunchConfig c, Object[] a) {
    long n = i(a, 1);
    long threads = Math.max(1, c.block().x());
    long span = (n + threads - 1) / threads;
    // Chain: the span's first line (off-chip; the span's loads are independent), thread 0's serial pass over the
    // block's partial sums in shared memory, then the span again as a serial store-add walk over cached lines.
    return new Work(2 * n, Precision.INT32, 8 * n, 4 * n, 1, threads + span);
  }

  /** lob_route_scatter(dec, hist, starts, m, n, perm): rank within the chunk counts blockDim/2 on average. */
  static Work scatterWork(LaunchConfig c, Object[] a) {
    long m = i(a, 3);
    // Chain: the decoded instrument, then its start and chunk offset (independent of each other) before the store.
    return new Work(m * (c.block().x() / 2.0 + 4), Precision.INT32, 12 * m, 4 * m, 2, 0);
  }

  /** The hottest instrument of a routed batch: its index and message count, from the totals buffer; null if unseen. */
  static int[] hottest(Object totals, int n) {
    if (!(totals instanceof DeviceMemory d)) {
      return null;
    }
    ByteBuffer t = d.hostView().orElse(null);
    if (t == null) {
      return null;
    }
    int best = 0;
    int at = 0;
    for (int i = 0; i < n; i++) {
      int v = t.getInt(4 * i);
      if (v > best) {
        best = v;
        at = i;
      }
    }
    return new int[] {at, best};
  }

  static int intAt(Object buffer, int index) {
    return buffer instanceof DeviceMemory d ? d.hostView().map(b -> b.getInt(4 * index)).orElse(0) : 0;
  }

  /**
   * lob_book(dec, perm, starts, totals, ord, lv, nlv, live, err, top, feat, n, k, logOC, LV, m): per message its
   * decoded record and permutation entry, about two probed order slots, and a scan and shift of a quarter of the
   * side's level array each way; per instrument its counters; per instrument and input batch the snapshot.
   */
  static Work bookWork(LaunchConfig c, Object[] a) {
    return bookWork(c, a, false);
  }

  /** The warp variant: the same traffic; its chain walks probes and levels 32 at a time. */
  static Work bookWarpWork(LaunchConfig c, Object[] a) {
    return bookWork(c, a, true);
  }

  /**
   * The longest per-thread (per-warp) chain of lob_book is the hottest instrument's walk through its messages of the
   * batch: a skewed (Zipf) batch gives one instrument hundreds of messages while the mean is a few. Per message, off
   * chip: the decoded record the permutation points at, and the first probe of the instrument's order table. On
   * chip (the instrument's table and levels stay in L1 for the rest of the walk): the permutation entry; the
   * further probes of a lookup at the table's load factor a (linear probing, successful search: (1 + 1/(1-a))/2);
   * the found slot's fields; the level walk to the price, half the side's levels c on average; the shift of the
   * levels behind it, half the side for the half of messages that make or remove a level; the insert probe or
   * erase walk. The warp variant walks 32 slots or levels per step: a lookup, a scan, a shift round each take one
   * step, and every step its lanes synchronize on (__syncwarp between a round's loads and its stores) counts as
   * one. The hottest instrument, its levels and live orders are read from the routed batch (totals, nlv, live) where
   * the device lets the host see them ({@link DeviceMemory#hostView()}); elsewhere the chain is unknown (0).
   */
  private static Work bookWork(LaunchConfig c, Object[] a, boolean warp) {
    long m = i(a, 15);
    long n = i(a, 11);
    long k = i(a, 12);
    long lv = i(a, 14);
    long perMessageRead = 4 * DEC + 4 + 2 * 16 + lv / 4 * 8;
    long perMessageWritten = 16 + lv / 4 * 8;
    long read = m * perMessageRead + n * 28;
    long written = m * perMessageWritten + n * 16 + k * n * (4L * TOP + 8 * 5);
    Work w = new Work(m * (20 + lv / 2.0), Precision.INT32, read, written);
    int[] hot = hottest(a[3], (int) n);
    if (hot == null || hot[1] == 0) {
      return w;
    }
    double levels = (intAt(a[6], 2 * hot[0]) + intAt(a[6], 2 * hot[0] + 1)) / 2.0;
    double load = Math.min(0.95, intAt(a[7], hot[0]) / (double) (1L << i(a, 13)));
    double probes = (1 + 1 / (1 - load)) / 2;
    double onChip;
    if (warp) {
      double rounds = Math.max(1, Math.ceil(levels / 32));
      // entry; lookup rounds beyond the first; fields; scan rounds; update or shift rounds (load, sync, store, sync)
      // for half the messages; the insert probe round and lane 0's stores between syncs; lane 0's erase walk.
      onChip = 1 + (Math.ceil(probes / 32) - 1) + 0.5 + rounds + 0.5 * 2 * rounds + 2.5 + probes;
    } else {
      // entry; probes beyond the first; fields; walk to the price; shift for half the messages; insert or erase walk.
      onChip = 1 + (probes - 1) + 0.5 + levels / 2 + 0.5 * levels / 2 + probes;
    }
    long msgs = hot[1];
    return w.withChain(2 * msgs, Math.round(msgs * onChip + k));
  }

  /** lob_features(top, feat, state, n, k). */
  static Work featuresWork(LaunchConfig c, Object[] a) {
    long n = i(a, 3);
    long k = i(a, 4);
    // Chain: the instrument's state, then one top-of-book row per input batch (off-chip, the rows just written).
    return new Work(k * n * 60.0, Precision.INT32, k * n * 4L * TOP + 8L * STATE * n, k * n * 8L * 11 + 8L * STATE * n,
        1 + k, 0);
  }

  /** lob_mlp(feat, w, sig, rows): 8x16 and 16x1 fused multiply-adds plus input normalization, in FP32. */
  static Work mlpWork(LaunchConfig c, Object[] a) {
    long rows = i(a, 3);
    // Chain: the feature row (the weights load alongside it), then the signal's store.
    return new Work(rows * (2.0 * IN * HID + 2.0 * HID + HID + 30), Precision.FP32,
        rows * 8L * 11 + 4L * LobLayout.WEIGHTS, rows * 4L, 1, 0);
  }

  // ---- emulations ----

  private static int threads(LaunchConfig c) {
    return (int) Math.min(Integer.MAX_VALUE, c.grid().volume() * c.block().volume());
  }

  static void decode(LaunchConfig c, KernelArgs a) {
    ByteBuffer in = a.memory(0);
    int offsetsAt = a.i32(1);
    int subAt = a.i32(2);
    int m = a.i32(3);
    int k = a.i32(4);
    int n = a.i32(5);
    ByteBuffer dec = a.memory(7);
    int limit = Math.min(m, threads(c));
    for (int j = 0; j < limit; j++) {
      int p = in.getInt(offsetsAt + 4 * j);
      int type = in.get(p) & 0xff;
      int locate = ((in.get(p + 1) & 0xff) << 8) | (in.get(p + 2) & 0xff);
      int s = 0;
      while (s + 1 < k && in.getInt(subAt + 4 * (s + 1)) <= j) {
        s++;
      }
      int side = 0;
      int shares = 0;
      int price = 0;
      long ref = 0;
      long ref2 = 0;
      boolean book = true;
      switch (type) {
        case 'A', 'F' -> {
          ref = be64(in, p + 11);
          side = in.get(p + 19) == 'B' ? 1 : -1;
          shares = be32(in, p + 20);
          price = be32(in, p + 32);
        }
        case 'E', 'X' -> {
          ref = be64(in, p + 11);
          shares = be32(in, p + 19);
        }
        case 'C' -> {
          ref = be64(in, p + 11);
          shares = be32(in, p + 19);
          price = be32(in, p + 32);
        }
        case 'D' -> ref = be64(in, p + 11);
        case 'U' -> {
          ref = be64(in, p + 11);
          ref2 = be64(in, p + 19);
          shares = be32(in, p + 27);
          price = be32(in, p + 31);
        }
        case 'P' -> {
          ref = be64(in, p + 11);
          side = in.get(p + 19) == 'B' ? 1 : -1;
          shares = be32(in, p + 20);
          price = be32(in, p + 32);
        }
        default -> book = false;
      }
      int d = j * DEC * 4;
      dec.putInt(d, book && locate >= 1 && locate <= n ? locate - 1 : -1);
      dec.putInt(d + 4, type);
      dec.putInt(d + 8, side);
      dec.putInt(d + 12, s);
      dec.putInt(d + 16, shares);
      dec.putInt(d + 20, price);
      dec.putLong(d + 24, book ? ref + 1 : 0); // keys: the reference plus one (0 marks an empty slot)
      dec.putLong(d + 32, type == 'U' ? ref2 + 1 : 0);
    }
  }

  private static int be32(ByteBuffer b, int at) {
    return ((b.get(at) & 0xff) << 24) | ((b.get(at + 1) & 0xff) << 16) | ((b.get(at + 2) & 0xff) << 8)
        | (b.get(at + 3) & 0xff);
  }

  private static long be64(ByteBuffer b, int at) {
    long v = 0;
    for (int q = 0; q < 8; q++) {
      v = (v << 8) | (b.get(at + q) & 0xff);
    }
    return v;
  }

  static void hist(LaunchConfig c, KernelArgs a) {
    ByteBuffer dec = a.memory(0);
    int m = a.i32(1);
    int n = a.i32(2);
    ByteBuffer hist = a.memory(3);
    int chunk = c.block().x();
    int limit = Math.min(m, threads(c));
    for (int j = 0; j < limit; j++) {
      int inst = dec.getInt(j * DEC * 4);
      if (inst >= 0) {
        int at = 4 * ((j / chunk) * n + inst);
        hist.putInt(at, hist.getInt(at) + 1);
      }
    }
  }

  static void chunks(LaunchConfig c, KernelArgs a) {
    ByteBuffer hist = a.memory(0);
    int chunks = a.i32(1);
    int n = a.i32(2);
    ByteBuffer totals = a.memory(3);
    int limit = Math.min(n, threads(c));
    // Each thread's prefix touches only its own column, so the columns are walked together, row by row (in memory
    // order): the same values as one thread after another.
    int[] run = new int[limit];
    for (int ch = 0; ch < chunks; ch++) {
      int row = 4 * ch * n;
      for (int i = 0; i < limit; i++) {
        int at = row + 4 * i;
        int v = hist.getInt(at);
        hist.putInt(at, run[i]);
        run[i] += v;
      }
    }
    for (int i = 0; i < limit; i++) {
      totals.putInt(4 * i, run[i]);
    }
  }

  static void scan(LaunchConfig c, KernelArgs a) {
    ByteBuffer totals = a.memory(0);
    int n = a.i32(1);
    ByteBuffer starts = a.memory(2);
    int run = 0;
    for (int i = 0; i < n; i++) {
      starts.putInt(4 * i, run);
      run += totals.getInt(4 * i);
    }
  }

  static void scatter(LaunchConfig c, KernelArgs a) {
    ByteBuffer dec = a.memory(0);
    ByteBuffer hist = a.memory(1);
    ByteBuffer starts = a.memory(2);
    int m = a.i32(3);
    int n = a.i32(4);
    ByteBuffer perm = a.memory(5);
    int chunk = c.block().x();
    int blocks = c.grid().x();
    int[] inst = new int[chunk];
    for (int b = 0; b < blocks; b++) {
      for (int t = 0; t < chunk; t++) {
        int j = b * chunk + t;
        inst[t] = j < m ? dec.getInt(j * DEC * 4) : -1;
      }
      for (int t = 0; t < chunk; t++) {
        int j = b * chunk + t;
        int mine = inst[t];
        if (j >= m || mine < 0) {
          continue;
        }
        int rank = 0;
        for (int u = 0; u < t; u++) {
          rank += inst[u] == mine ? 1 : 0;
        }
        perm.putInt(4 * (starts.getInt(4 * mine) + hist.getInt(4 * (b * n + mine)) + rank), j);
      }
    }
  }

  static void book(LaunchConfig c, KernelArgs a) {
    LobBook.run(a, Math.min(a.i32(11), threads(c)));
  }

  /** The warp variant: 32 threads per instrument, the same effect on memory. */
  static void bookWarp(LaunchConfig c, KernelArgs a) {
    LobBook.run(a, Math.min(a.i32(11), threads(c) / 32));
  }

  static void features(LaunchConfig c, KernelArgs a) {
    ByteBuffer top = a.memory(0);
    ByteBuffer feat = a.memory(1);
    ByteBuffer state = a.memory(2);
    int n = a.i32(3);
    int k = a.i32(4);
    int limit = Math.min(n, threads(c));
    for (int i = 0; i < limit; i++) {
      int st = i * STATE * 8;
      long pb = state.getLong(st);
      long pa = state.getLong(st + 8);
      long pbs = state.getLong(st + 16);
      long pas = state.getLong(st + 24);
      long pm = state.getLong(st + 32);
      long var = state.getLong(st + 40);
      for (int s = 0; s < k; s++) {
        int o = (s * n + i) * TOP * 4;
        int f = (s * n + i) * FEAT * 8;
        long bid = top.getInt(o);
        long bs = top.getInt(o + 4);
        long ask = top.getInt(o + 80);
        long as = top.getInt(o + 84);
        long db = 0;
        long da = 0;
        for (int l = 0; l < 10; l++) {
          db += top.getInt(o + 8 * l + 4);
          da += top.getInt(o + 84 + 8 * l);
        }
        boolean two = bs > 0 && as > 0;
        long spread = two ? ask - bid : 0;
        long mid2 = two ? ask + bid : 0;
        long micro = two ? (bid * as + ask * bs) / (bs + as) : 0;
        long ofi = (bid >= pb ? bs : 0) - (bid <= pb ? pbs : 0) - (ask <= pa ? as : 0) + (ask >= pa ? pas : 0);
        long r = mid2 > 0 && pm > 0 ? mid2 - pm : 0;
        var = (var * 15 + r * r) / 16;
        feat.putLong(f, bid);
        feat.putLong(f + 8, ask);
        feat.putLong(f + 16, bs);
        feat.putLong(f + 24, as);
        feat.putLong(f + 32, spread);
        feat.putLong(f + 40, mid2);
        feat.putLong(f + 48, micro);
        feat.putLong(f + 56, db);
        feat.putLong(f + 64, da);
        feat.putLong(f + 72, ofi);
        feat.putLong(f + 96, var);
        pb = bid;
        pa = ask;
        pbs = bs;
        pas = as;
        pm = mid2;
      }
      state.putLong(st, pb);
      state.putLong(st + 8, pa);
      state.putLong(st + 16, pbs);
      state.putLong(st + 24, pas);
      state.putLong(st + 32, pm);
      state.putLong(st + 40, var);
    }
  }

  private static float clamp(float x) {
    return Math.min(Math.max(x, -10.0f), 10.0f);
  }

  static void mlp(LaunchConfig c, KernelArgs a) {
    ByteBuffer feat = a.memory(0);
    ByteBuffer wb = a.memory(1);
    ByteBuffer sig = a.memory(2);
    int rows = a.i32(3);
    float[] w = new float[LobLayout.WEIGHTS];
    for (int q = 0; q < w.length; q++) {
      w[q] = wb.getFloat(4 * q);
    }
    float[] x = new float[IN];
    int limit = Math.min(rows, threads(c));
    for (int r = 0; r < limit; r++) {
      int f = r * FEAT * 8;
      long bs = feat.getLong(f + 16);
      long as = feat.getLong(f + 24);
      long spread = feat.getLong(f + 32);
      long mid2 = feat.getLong(f + 40);
      long micro = feat.getLong(f + 48);
      long db = feat.getLong(f + 56);
      long da = feat.getLong(f + 64);
      long ofi = feat.getLong(f + 72);
      long tv = feat.getLong(f + 80);
      long msgs = feat.getLong(f + 88);
      long var = feat.getLong(f + 96);
      float m = (float) mid2;
      x[0] = mid2 > 0 ? (float) (spread * 20000) / m : 0.0f;
      x[1] = bs + as > 0 ? (float) (bs - as) / (float) (bs + as) : 0.0f;
      x[2] = db + da > 0 ? (float) (db - da) / (float) (db + da) : 0.0f;
      x[3] = mid2 > 0 ? (float) ((2 * micro - mid2) * 20000) / m : 0.0f;
      x[4] = (float) ofi / (float) (db + da + 1);
      x[5] = (float) tv / (float) (db + da + 1);
      x[6] = mid2 > 0 ? ((float) Math.sqrt((float) var) * 20000.0f) / m : 0.0f;
      x[7] = (float) msgs / 100.0f;
      for (int u = 0; u < IN; u++) {
        x[u] = clamp(x[u]);
      }
      float out = w[HID * IN + HID + HID];
      for (int h = 0; h < HID; h++) {
        float acc = w[HID * IN + h];
        for (int u = 0; u < IN; u++) {
          acc = Math.fma(w[h * IN + u], x[u], acc);
        }
        acc = acc > 0.0f ? acc : 0.0f;
        out = Math.fma(w[HID * IN + HID + h], acc, out);
      }
      sig.putFloat(4 * r, out / (1.0f + Math.abs(out)));
    }
  }
}
