package io.gitm.search;

import io.gitm.job.Job;
import io.gitm.job.TrialFailure;
import io.gitm.levers.Setup;
import io.gitm.testkit.FakeTicker;
import io.gitm.workload.OutputDigest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A seeded job for tests whose ground truth is known: each lever id (read off the setup, see {@link SyntheticLever})
 * multiplies the metric by its effect, sets of levers may add an interaction, and every block is noisy (relative
 * Gaussian noise) and may drift with the number of blocks run so far. Levers can also corrupt the output (bits,
 * values within a relative shift, NaN), crash, hang, run out of memory or be refused at open. When given a fake
 * ticker, each open and block advances it.
 */
final class SyntheticJob implements Job {
  private final long seed;
  private double base = 1000;
  private double noise = 0.02;
  private double driftPerBlock;
  private boolean higherIsBetter = true;
  private FakeTicker ticker;
  private long blockNanos = 1_000_000_000L;
  private long openNanos;
  private final Map<String, Double> effects = new HashMap<>();
  private final Map<Set<String>, Double> interactions = new HashMap<>();
  private final Set<String> corrupting = new TreeSet<>();
  private final Map<String, Double> shifts = new HashMap<>();
  private final Set<String> nan = new TreeSet<>();
  private final Set<String> crashing = new TreeSet<>();
  private final List<Set<String>> crashingTogether = new ArrayList<>();
  private final Set<String> hanging = new TreeSet<>();
  private final Set<String> oom = new TreeSet<>();
  private final Set<String> refused = new TreeSet<>();
  private boolean brokenAnchor;
  private final AtomicLong blocksRun = new AtomicLong();
  private final AtomicInteger runs = new AtomicInteger();
  private final AtomicInteger openNow = new AtomicInteger();
  private final AtomicInteger mostOpen = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final AtomicInteger interrupted = new AtomicInteger();
  private final AtomicInteger hangingNow = new AtomicInteger();
  private final Map<Set<String>, Integer> opens = new ConcurrentHashMap<>();

  private boolean unreproducible;

  SyntheticJob(long seed) {
    this.seed = seed;
  }

  SyntheticJob noise(double relative) {
    this.noise = relative;
    return this;
  }

  SyntheticJob drift(double relativePerBlock) {
    this.driftPerBlock = relativePerBlock;
    return this;
  }

  SyntheticJob lowerIsBetter() {
    this.higherIsBetter = false;
    return this;
  }

  SyntheticJob ticking(FakeTicker t, double blockSeconds, double openSeconds) {
    this.ticker = t;
    this.blockNanos = (long) (blockSeconds * 1e9);
    this.openNanos = (long) (openSeconds * 1e9);
    return this;
  }

  /** Lever {@code id} multiplies the metric's goodness by {@code factor} (above 1 is better). */
  SyntheticJob effect(String id, double factor) {
    effects.put(id, factor);
    return this;
  }

  /** When all of {@code ids} are applied, the metric's goodness is multiplied by {@code factor} on top. */
  SyntheticJob interaction(Set<String> ids, double factor) {
    interactions.put(Set.copyOf(ids), factor);
    return this;
  }

  SyntheticJob corrupts(String id) {
    corrupting.add(id);
    return this;
  }

  /** Lever {@code id} moves every output value by {@code relative}, keeping the bits-hash apart as well. */
  SyntheticJob shifts(String id, double relative) {
    shifts.put(id, relative);
    return this;
  }

  /** The job's output differs from run to run as shipped (as a GPU training with atomics does). */
  SyntheticJob unreproducible() {
    unreproducible = true;
    return this;
  }

  @Override
  public boolean reproducibleOutput() {
    return !unreproducible;
  }

  SyntheticJob nan(String id) {
    nan.add(id);
    return this;
  }

  SyntheticJob crashes(String id) {
    crashing.add(id);
    return this;
  }

  /** Every block crashes when all of {@code ids} are applied (each alone runs). */
  SyntheticJob crashesTogether(Set<String> ids) {
    crashingTogether.add(Set.copyOf(ids));
    return this;
  }

  SyntheticJob hangs(String id) {
    hanging.add(id);
    return this;
  }

  SyntheticJob runsOutOfMemory(String id) {
    oom.add(id);
    return this;
  }

  SyntheticJob refuses(String id) {
    refused.add(id);
    return this;
  }

  /** Opening a setup without any lever fails with a device error. */
  SyntheticJob brokenAnchor() {
    brokenAnchor = true;
    return this;
  }

  /** The true improvement factor of a set of levers, without noise. */
  double trueGain(Set<String> levers) {
    double g = 1;
    for (String id : levers) {
      g *= effects.getOrDefault(id, 1.0);
    }
    for (Map.Entry<Set<String>, Double> e : interactions.entrySet()) {
      if (levers.containsAll(e.getKey())) {
        g *= e.getValue();
      }
    }
    return g;
  }

  double trueGain(Setup setup) {
    return trueGain(levers(setup));
  }

  static Set<String> levers(Setup setup) {
    Set<String> ids = new TreeSet<>();
    setup.config().kernelVariants().keySet().stream().filter(k -> k.startsWith(SyntheticLever.VARIANT))
        .forEach(k -> ids.add(k.substring(SyntheticLever.VARIANT.length())));
    setup.environment().keySet().stream().filter(k -> k.startsWith(SyntheticLever.ENV))
        .forEach(k -> ids.add(k.substring(SyntheticLever.ENV.length())));
    return ids;
  }

  /** How many times a setup with exactly these levers was opened. */
  int opens(Set<String> levers) {
    return opens.getOrDefault(Set.copyOf(levers), 0);
  }

  /** How many times a setup holding all of these levers (and maybe others) was opened. */
  int opensWith(Set<String> levers) {
    return opens.entrySet().stream().filter(e -> e.getKey().containsAll(levers)).mapToInt(Map.Entry::getValue).sum();
  }

  int totalOpens() {
    return runs.get();
  }

  int closed() {
    return closed.get();
  }

  int mostOpenAtOnce() {
    return mostOpen.get();
  }

  int openNow() {
    return openNow.get();
  }

  int interruptedBlocks() {
    return interrupted.get();
  }

  /** Blocks that entered a hang and have not been interrupted out of it yet. */
  int hangingNow() {
    return hangingNow.get();
  }

  @Override
  public String metric() {
    return higherIsBetter ? "items/s" : "ms";
  }

  @Override
  public boolean higherIsBetter() {
    return higherIsBetter;
  }

  @Override
  public Run open(Setup setup) throws TrialFailure {
    Set<String> levers = levers(setup);
    opens.merge(Set.copyOf(levers), 1, Integer::sum);
    int n = runs.incrementAndGet();
    if (ticker != null) {
      ticker.advance(openNanos);
    }
    if (brokenAnchor && levers.isEmpty()) {
      throw new TrialFailure(TrialFailure.Kind.DEVICE_ERROR, "synthetic: the device is lost");
    }
    for (String id : levers) {
      if (refused.contains(id)) {
        throw new TrialFailure(TrialFailure.Kind.SETUP_REFUSED, "lever " + id + " is refused at open");
      }
    }
    mostOpen.accumulateAndGet(openNow.incrementAndGet(), Math::max);
    return new SyntheticRun(levers, new SplittableRandom(seed * 1_000_003L + n));
  }

  private final class SyntheticRun implements Run {
    private final Set<String> levers;
    private final SplittableRandom random;
    private final double gain;
    private int blocks;
    private boolean open = true;

    SyntheticRun(Set<String> levers, SplittableRandom random) {
      this.levers = levers;
      this.random = random;
      this.gain = trueGain(levers);
    }

    @Override
    public double block() throws TrialFailure {
      if (!open) {
        throw new IllegalStateException("block on a closed run");
      }
      for (String id : levers) {
        if (hanging.contains(id)) {
          hangingNow.incrementAndGet();
          try {
            new CountDownLatch(1).await();
          } catch (InterruptedException e) {
            interrupted.incrementAndGet();
            Thread.currentThread().interrupt();
            throw new TrialFailure(TrialFailure.Kind.HANG, "interrupted");
          } finally {
            hangingNow.decrementAndGet();
          }
        }
        if (crashing.contains(id)) {
          throw new IllegalStateException("synthetic crash of lever " + id);
        }
        if (oom.contains(id)) {
          throw new OutOfMemoryError("synthetic: out of device memory under lever " + id);
        }
      }
      for (Set<String> together : crashingTogether) {
        if (levers.containsAll(together)) {
          throw new IllegalStateException("synthetic crash of levers " + together + " together");
        }
      }
      long t = blocksRun.getAndIncrement();
      if (ticker != null) {
        ticker.advance(blockNanos);
      }
      blocks++;
      double goodness = gain * (1 + driftPerBlock * t) * (1 + noise * random.nextGaussian());
      return higherIsBetter ? base * goodness : base / goodness;
    }

    @Override
    public OutputDigest output() {
      List<String> bits = new ArrayList<>();
      bits.add("blocks=" + blocks);
      double scale = 1;
      for (String id : levers) {
        if (corrupting.contains(id)) {
          bits.add("corrupted-by=" + id);
        }
        if (shifts.containsKey(id)) {
          bits.add("shifted-by=" + id);
          scale *= 1 + shifts.get(id);
        }
      }
      double[] values = new double[4];
      for (int k = 0; k < values.length; k++) {
        values[k] = (k + 1) * (blocks + 1) * scale;
      }
      if (levers.stream().anyMatch(nan::contains)) {
        values[0] = Double.NaN;
      }
      return new OutputDigest(sha256(String.join(";", bits)), values);
    }

    @Override
    public void close() {
      if (open) {
        open = false;
        openNow.decrementAndGet();
        closed.incrementAndGet();
      }
    }
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
