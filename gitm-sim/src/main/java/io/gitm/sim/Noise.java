package io.gitm.sim;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The simulated device's noise: lognormal factors drawn once per device from its seed, then picked at random one
 * draw per cost. Entry {@code 2i} of {@link #factors} is the device factor and {@code 2i + 1} the host factor of
 * index {@code i}, side by side so that a draw reads one cache line.
 *
 * <p>The factors and the generator's state after drawing them depend on the seed and the jitter only, so they are
 * kept for the last few (seed, jitter) pairs: devices opened again with a seed (the replays of a counterfactual
 * prediction use the same few seeds for every lever) skip drawing 2 x 16384 normal variates.
 */
final class Noise {
  /** Factors per table; a power of two, so that an index is a mask of a uniform int. */
  static final int TABLE = 1 << 14;
  /** How many (seed, jitter) pairs are kept. */
  private static final int KEPT = 16;
  private static final Map<Key, Noise> RECENT = new LinkedHashMap<>(32, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Noise> eldest) {
      return size() > KEPT;
    }
  };

  private record Key(long seed, long jitterBits) {
  }

  /** Interleaved device and host factors; never written once made. */
  final double[] factors;
  /** The generator's state once the factors are drawn: where the per-cost index draws start. */
  final long state;

  private Noise(double[] factors, long state) {
    this.factors = factors;
    this.state = state;
  }

  /**
   * The noise of a device of {@code seed} with log-sd {@code jitter} for device times and 2.5 x for host costs: the
   * factors {@code new SplittableRandom(seed)} draws (device table first, then host table), or null when
   * {@code jitter} is not positive.
   */
  static Noise of(long seed, double jitter) {
    if (!(jitter > 0)) {
      return null;
    }
    Key key = new Key(seed, Double.doubleToLongBits(jitter));
    synchronized (RECENT) {
      Noise n = RECENT.get(key);
      if (n != null) {
        return n;
      }
    }
    SplitMix rng = new SplitMix(seed);
    double[] f = new double[2 * TABLE];
    fill(f, 0, rng, jitter);
    fill(f, 1, rng, jitter * 2.5);
    Noise n = new Noise(f, rng.state());
    synchronized (RECENT) {
      RECENT.put(key, n);
    }
    return n;
  }

  /** Fills entries {@code 2i + side} with lognormal factors of mean 1 and log-sd {@code sigma}, in order of i. */
  private static void fill(double[] f, int side, RandomGenerator rng, double sigma) {
    double shift = sigma * sigma / 2;
    for (int i = 0; i < TABLE; i++) {
      f[2 * i + side] = Math.exp(sigma * rng.nextGaussian() - shift);
    }
  }

  /**
   * SplitMix64 exactly as {@code java.util.SplittableRandom(seed)} computes it (the same {@code nextLong},
   * {@code nextInt} and, through the interface's defaults, {@code nextDouble} and {@code nextGaussian}), with a state
   * that can be read and restored.
   */
  static final class SplitMix implements RandomGenerator {
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
    private long seed;

    SplitMix(long seed) {
      this.seed = seed;
    }

    long state() {
      return seed;
    }

    @Override
    public long nextLong() {
      long z = seed += GOLDEN_GAMMA;
      z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
      z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
      return z ^ (z >>> 31);
    }

    @Override
    public int nextInt() {
      long z = seed += GOLDEN_GAMMA;
      z = (z ^ (z >>> 33)) * 0x62a9d9ed799705f5L;
      return (int) (((z ^ (z >>> 28)) * 0xcb24d0a5c88c35b3L) >>> 32);
    }
  }
}
