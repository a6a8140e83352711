package io.gitm.workloads.hft;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A seeded generator of realistic ITCH 5.0 sessions: a directory of {@code instruments} stocks, Zipf-distributed
 * activity across them, Poisson arrivals with bursts (a two-state Markov-modulated rate), a random-walk mid price on
 * a one-cent tick grid, heavy-tailed (Pareto) order sizes, most adds later cancelled or deleted, some executed,
 * replaced or traded; every other ITCH 5.0 message type appears too, so that a reader sees them all. The same
 * parameters give the same bytes.
 *
 * @param bookMessages how many book messages (add, execute, cancel, delete, replace, trade) to write
 * @param maxLiveOrders live orders an instrument may hold; at the limit an add becomes a cancel
 * @param maxLevels distinct prices a side may hold; at the limit an add joins an existing price
 */
record ItchGenerator(long seed, int instruments, int bookMessages, int maxLiveOrders, int maxLevels) {

  static final int TICK = 100; // one cent, in ITCH's 1/10000 $ price unit
  /** Activity of the instrument of rank r is proportional to r^-0.75: the busiest of 4096 takes about 3%. */
  static final double ZIPF_EXPONENT = 0.75;
  /** Bumped whenever the generator's output for given parameters changes; part of dataset names. */
  static final int VERSION = 2;

  ItchGenerator {
    if (instruments < 1 || instruments > 65535) {
      throw new IllegalArgumentException("instruments must be 1..65535, got " + instruments);
    }
    if (bookMessages < 0) {
      throw new IllegalArgumentException("negative message count " + bookMessages);
    }
    if (maxLiveOrders < 1 || maxLevels < 1) {
      throw new IllegalArgumentException("maxLiveOrders and maxLevels must be positive");
    }
  }

  static ItchGenerator of(long seed, int instruments, int bookMessages) {
    return new ItchGenerator(seed, instruments, bookMessages, 400, 100);
  }

  private static final class Order {
    final long ref;
    final int side; // +1 buy, -1 sell
    int ticks;
    int shares;

    Order(long ref, int side, int ticks, int shares) {
      this.ref = ref;
      this.side = side;
      this.ticks = ticks;
      this.shares = shares;
    }
  }

  private static final class Stock {
    int mid;
    final List<Order> live = new ArrayList<>();
    final Map<Integer, Integer> bidLevels = new HashMap<>();
    final Map<Integer, Integer> askLevels = new HashMap<>();

    Map<Integer, Integer> levels(int side) {
      return side > 0 ? bidLevels : askLevels;
    }
  }

  /** The session with 2-byte length prefixes, as Nasdaq ships its files. */
  byte[] generate() {
    Session g = new Session();
    g.open();
    for (int n = 0; n < bookMessages; n++) {
      g.next();
    }
    g.close();
    return g.out.bytes();
  }

  /**
   * The same session written to {@code sink} as it is made, in blocks, so that its size is not bounded by memory
   * or by an array's: the bytes equal {@link #generate()}'s.
   */
  void generate(java.io.OutputStream sink) throws java.io.IOException {
    Session g = new Session(new Out(sink));
    g.open();
    for (int n = 0; n < bookMessages; n++) {
      g.next();
    }
    g.close();
    g.out.flush();
  }

  /** One generation in progress: the output, the random stream, the stocks' books and the session clock. */
  private final class Session {
    final Out out;
    final SplittableRandom rnd = new SplittableRandom(seed);
    final double[] cumulative = zipf(rnd, instruments, ZIPF_EXPONENT);
    final Stock[] stocks = new Stock[instruments];
    long clock;
    long nextRef = 1;
    long match = 1;
    boolean burst;

    Session() {
      this(new Out(Math.max(1024, (long) bookMessages * 38 + (long) instruments * 120)));
    }

    Session(Out out) {
      this.out = out;
      for (int i = 0; i < instruments; i++) {
        stocks[i] = new Stock();
        stocks[i].mid = (int) Math.round(Math.exp(Math.log(500) + rnd.nextDouble() * Math.log(100))); // $5..$500
      }
    }

    /** The pre-market: the directory, trading states and the other session messages, then the open. */
    void open() {
      clock = 34_200_000_000_000L - 1_800_000_000_000L; // 09:00, pre-market
      out.system(clock, 'O');
      for (int i = 0; i < instruments; i++) {
        out.directory(i + 1, clock += 1000, symbol(i), rnd);
        out.tradingAction(i + 1, clock += 1000, symbol(i));
        if (rnd.nextInt(20) == 0) {
          out.regSho(i + 1, clock += 1000, symbol(i));
        }
      }
      out.misc('V', 0, clock += 1000);
      out.participant(1, clock += 1000, symbol(0));
      out.misc('K', 1, clock += 1000);
      out.misc('J', 1, clock += 1000);
      out.misc('N', 1, clock += 1000);
      out.system(clock = 34_200_000_000_000L - 60_000_000_000L, 'S');
      out.system(clock = 34_200_000_000_000L, 'Q');
    }

    /** The next book message, on an instrument drawn by activity. */
    void next() {
      // Arrivals: Poisson at 150k msg/s, 15x faster in bursts that start and end at random.
      double rate = burst ? 2_250_000.0 : 150_000.0;
      clock += Math.max(1, (long) (-Math.log(1 - rnd.nextDouble()) / rate * 1e9));
      if (burst ? rnd.nextInt(400) == 0 : rnd.nextInt(5000) == 0) {
        burst = !burst;
      }
      if (rnd.nextInt(20_000) == 0) {
        out.misc("WhBIO".charAt(rnd.nextInt(5)), 1 + rnd.nextInt(instruments), clock);
      }
      int inst = pick(cumulative, rnd.nextDouble());
      Stock s = stocks[inst];
      if (rnd.nextInt(16) == 0) {
        s.mid = Math.max(10, s.mid + (rnd.nextBoolean() ? 1 : -1));
      }
      double u = rnd.nextDouble();
      boolean full = s.live.size() >= maxLiveOrders;
      if (s.live.isEmpty() || (u < 0.46 && !full)) {
        add(s, inst);
      } else if (u < 0.78 || full) {
        cancelOrDelete(s, inst + 1);
      } else if (u < 0.88) {
        replace(s, inst + 1);
      } else if (u < 0.97) {
        execute(s, inst + 1);
      } else {
        int side = rnd.nextBoolean() ? 1 : -1;
        out.trade(inst + 1, clock, side, size(rnd), symbol(inst), (s.mid + rnd.nextInt(3) - 1) * TICK, match++);
      }
    }

    private void add(Stock s, int inst) {
      int locate = inst + 1;
      int side = rnd.nextBoolean() ? 1 : -1;
      int ticks = quoteTicks(s, side, rnd);
      int shares = size(rnd);
      Order o = new Order(nextRef++, side, ticks, shares);
      s.live.add(o);
      s.levels(side).merge(ticks, 1, Integer::sum);
      if (rnd.nextInt(10) == 0) {
        int firm = rnd.nextInt(5);
        out.addMpid(locate, clock, o.ref, side, shares, symbol(inst), ticks * TICK,
            "GSCOMSCOJPMSUBSCCITD".substring(4 * firm, 4 * firm + 4));
      } else {
        out.add(locate, clock, o.ref, side, shares, symbol(inst), ticks * TICK);
      }
    }

    private void cancelOrDelete(Stock s, int locate) {
      int k = rnd.nextInt(s.live.size());
      Order o = s.live.get(k);
      if (o.shares > 1 && rnd.nextInt(5) == 0) {
        int c = 1 + rnd.nextInt(o.shares - 1);
        o.shares -= c;
        out.cancel(locate, clock, o.ref, c);
      } else {
        remove(s, k);
        out.delete(locate, clock, o.ref);
      }
    }

    private void replace(Stock s, int locate) {
      int k = rnd.nextInt(s.live.size());
      Order o = s.live.get(k);
      remove(s, k);
      int ticks = quoteTicks(s, o.side, rnd);
      int shares = size(rnd);
      Order r = new Order(nextRef++, o.side, ticks, shares);
      s.live.add(r);
      s.levels(o.side).merge(ticks, 1, Integer::sum);
      out.replace(locate, clock, o.ref, r.ref, shares, ticks * TICK);
    }

    /** Executes part of the best order of a random side (the other side where that one is empty). */
    private void execute(Stock s, int locate) {
      int side = rnd.nextBoolean() ? 1 : -1;
      int k = best(s, side);
      if (k < 0) {
        k = best(s, -side);
      }
      Order o = s.live.get(k);
      int x = Math.min(o.shares, size(rnd));
      if (rnd.nextInt(5) == 0) {
        out.executedWithPrice(locate, clock, o.ref, x, match++, (o.ticks + rnd.nextInt(3) - 1) * TICK);
      } else {
        out.executed(locate, clock, o.ref, x, match++);
      }
      o.shares -= x;
      if (o.shares == 0) {
        remove(s, k);
      }
    }

    /** The closing cross and the end-of-session messages. */
    void close() {
      out.cross(1, clock += 1000, symbol(0), match++);
      out.misc('I', 1, clock += 1000);
      out.misc('B', 1, clock += 1000);
      out.misc('O', 1, clock += 1000);
      out.misc('W', 0, clock += 1000);
      out.misc('h', 1, clock += 1000);
      out.system(clock += 1000, 'M');
      out.system(clock += 1000, 'E');
      out.system(clock += 1000, 'C');
    }
  }

  private int quoteTicks(Stock s, int side, SplittableRandom rnd) {
    int offset = 0;
    while (offset < 60 && rnd.nextInt(10) < 7) {
      offset++;
    }
    int ticks = side > 0 ? Math.max(1, s.mid - 1 - offset) : s.mid + 1 + offset;
    Map<Integer, Integer> levels = s.levels(side);
    if (levels.size() >= maxLevels && !levels.containsKey(ticks)) {
      // At the level limit: join the price of a live order on this side.
      for (int tries = 0;; tries++) {
        Order o = s.live.get(rnd.nextInt(s.live.size()));
        if (o.side == side) {
          return o.ticks;
        }
        if (tries > 64) {
          for (Order q : s.live) {
            if (q.side == side) {
              return q.ticks;
            }
          }
        }
      }
    }
    return ticks;
  }

  /** Heavy-tailed sizes: mostly round lots from a Pareto(1.4) tail, some odd lots. */
  private static int size(SplittableRandom rnd) {
    if (rnd.nextInt(8) == 0) {
      return 1 + rnd.nextInt(99);
    }
    double pareto = Math.pow(1 - rnd.nextDouble(), -1 / 1.4);
    return (int) Math.min(50_000, 100 * Math.ceil(pareto));
  }

  private static int best(Stock s, int side) {
    int k = -1;
    for (int i = 0; i < s.live.size(); i++) {
      Order o = s.live.get(i);
      if (o.side == side && (k < 0 || (side > 0 ? o.ticks > s.live.get(k).ticks : o.ticks < s.live.get(k).ticks))) {
        k = i;
      }
    }
    return k;
  }

  private static void remove(Stock s, int k) {
    Order o = s.live.get(k);
    int last = s.live.size() - 1;
    s.live.set(k, s.live.get(last));
    s.live.remove(last);
    Map<Integer, Integer> levels = s.levels(o.side);
    if (levels.merge(o.ticks, -1, Integer::sum) == 0) {
      levels.remove(o.ticks);
    }
  }

  private static double[] zipf(SplittableRandom rnd, int n, double exponent) {
    int[] rank = new int[n];
    for (int i = 0; i < n; i++) {
      rank[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = rank[i];
      rank[i] = rank[j];
      rank[j] = t;
    }
    double[] c = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1 / Math.pow(rank[i] + 1, exponent);
      c[i] = sum;
    }
    for (int i = 0; i < n; i++) {
      c[i] /= sum;
    }
    c[n - 1] = 1;
    return c;
  }

  private static int pick(double[] cumulative, double u) {
    int i = Arrays.binarySearch(cumulative, u);
    return Math.min(cumulative.length - 1, i >= 0 ? i : -i - 1);
  }

  static String symbol(int i) {
    StringBuilder b = new StringBuilder();
    int v = i;
    do {
      b.append((char) ('A' + v % 26));
      v /= 26;
    } while (v > 0);
    while (b.length() < 8) {
      b.append(' ');
    }
    return b.toString();
  }

  /** Writes length-prefixed messages, into memory or, in blocks, to a stream. */
  private static final class Out {
    private static final int BLOCK = 8 << 20;
    private byte[] buf;
    private int size;
    private final java.io.OutputStream sink;

    Out(long hint) {
      buf = new byte[(int) Math.min(Integer.MAX_VALUE - 16, hint)];
      sink = null;
    }

    Out(java.io.OutputStream sink) {
      buf = new byte[BLOCK];
      this.sink = sink;
    }

    /** Writes what is buffered to the stream (the messages written so far are whole). */
    void flush() throws java.io.IOException {
      sink.write(buf, 0, size);
      size = 0;
    }

    byte[] bytes() {
      return Arrays.copyOf(buf, size);
    }

    private int begin(char type, int locate, long ts) {
      int len = Itch.length(type);
      if (sink != null && size + len + 2 > buf.length) {
        try {
          flush();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
      if (size + len + 2 > buf.length) {
        buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 16, (long) buf.length * 2 + len + 2));
      }
      Itch.put16(buf, size, len);
      int at = size + 2;
      buf[at] = (byte) type;
      Itch.put16(buf, at + 1, locate);
      Itch.put16(buf, at + 3, 0);
      Itch.put48(buf, at + 5, ts);
      size = at + len;
      return at;
    }

    private void ascii(int at, String s, int width) {
      for (int i = 0; i < width; i++) {
        buf[at + i] = (byte) (i < s.length() ? s.charAt(i) : ' ');
      }
    }

    void system(long ts, char code) {
      int at = begin('S', 0, ts);
      buf[at + 11] = (byte) code;
    }

    void directory(int locate, long ts, String symbol, SplittableRandom rnd) {
      int at = begin('R', locate, ts);
      ascii(at + 11, symbol, 8);
      buf[at + 19] = (byte) "QGSNA".charAt(rnd.nextInt(5));
      buf[at + 20] = 'N';
      Itch.put32(buf, at + 21, 100);
      buf[at + 25] = 'N';
      buf[at + 26] = 'C';
      ascii(at + 27, "Z ", 2);
      buf[at + 29] = 'P';
      buf[at + 30] = 'N';
      buf[at + 31] = 'N';
      buf[at + 32] = '1';
      buf[at + 33] = 'N';
      Itch.put32(buf, at + 34, 0);
      buf[at + 38] = 'N';
    }

    void tradingAction(int locate, long ts, String symbol) {
      int at = begin('H', locate, ts);
      ascii(at + 11, symbol, 8);
      buf[at + 19] = 'T';
      buf[at + 20] = ' ';
      ascii(at + 21, "    ", 4);
    }

    void regSho(int locate, long ts, String symbol) {
      int at = begin('Y', locate, ts);
      ascii(at + 11, symbol, 8);
      buf[at + 19] = '0';
    }

    void participant(int locate, long ts, String symbol) {
      int at = begin('L', locate, ts);
      ascii(at + 11, "GSCO", 4);
      ascii(at + 15, symbol, 8);
      buf[at + 23] = 'Y';
      buf[at + 24] = 'N';
      buf[at + 25] = 'A';
    }

    /** A message of a type the book ignores, with zeroed (or blank) fields after the header. */
    void misc(char type, int locate, long ts) {
      int at = begin(type, locate, ts);
      Arrays.fill(buf, at + 11, at + Itch.length(type), (byte) 0);
    }

    void add(int locate, long ts, long ref, int side, int shares, String symbol, int price) {
      int at = begin('A', locate, ts);
      addFields(at, ref, side, shares, symbol, price);
    }

    void addMpid(int locate, long ts, long ref, int side, int shares, String symbol, int price, String mpid) {
      int at = begin('F', locate, ts);
      addFields(at, ref, side, shares, symbol, price);
      ascii(at + 36, mpid, 4);
    }

    private void addFields(int at, long ref, int side, int shares, String symbol, int price) {
      Itch.put64(buf, at + 11, ref);
      buf[at + 19] = (byte) (side > 0 ? 'B' : 'S');
      Itch.put32(buf, at + 20, shares);
      ascii(at + 24, symbol, 8);
      Itch.put32(buf, at + 32, price);
    }

    void executed(int locate, long ts, long ref, int shares, long match) {
      int at = begin('E', locate, ts);
      Itch.put64(buf, at + 11, ref);
      Itch.put32(buf, at + 19, shares);
      Itch.put64(buf, at + 23, match);
    }

    void executedWithPrice(int locate, long ts, long ref, int shares, long match, int price) {
      int at = begin('C', locate, ts);
      Itch.put64(buf, at + 11, ref);
      Itch.put32(buf, at + 19, shares);
      Itch.put64(buf, at + 23, match);
      buf[at + 31] = 'Y';
      Itch.put32(buf, at + 32, price);
    }

    void cancel(int locate, long ts, long ref, int shares) {
      int at = begin('X', locate, ts);
      Itch.put64(buf, at + 11, ref);
      Itch.put32(buf, at + 19, shares);
    }

    void delete(int locate, long ts, long ref) {
      int at = begin('D', locate, ts);
      Itch.put64(buf, at + 11, ref);
    }

    void replace(int locate, long ts, long ref, long newRef, int shares, int price) {
      int at = begin('U', locate, ts);
      Itch.put64(buf, at + 11, ref);
      Itch.put64(buf, at + 19, newRef);
      Itch.put32(buf, at + 27, shares);
      Itch.put32(buf, at + 31, price);
    }

    void trade(int locate, long ts, int side, int shares, String symbol, int price, long match) {
      int at = begin('P', locate, ts);
      Itch.put64(buf, at + 11, 0);
      buf[at + 19] = (byte) (side > 0 ? 'B' : 'S');
      Itch.put32(buf, at + 20, shares);
      ascii(at + 24, symbol, 8);
      Itch.put32(buf, at + 32, price);
      Itch.put64(buf, at + 36, match);
    }

    void cross(int locate, long ts, String symbol, long match) {
      int at = begin('Q', locate, ts);
      Itch.put64(buf, at + 11, 1000);
      ascii(at + 19, symbol, 8);
      Itch.put32(buf, at + 27, 1_000_000);
      Itch.put64(buf, at + 31, match);
      buf[at + 39] = 'C';
    }
  }
}
