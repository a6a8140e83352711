package io.gitm.workloads.af2;

import io.gitm.workloads.af2.Af2Workload.Params;
import io.gitm.workloads.kit.Settings;
import java.util.List;
import java.util.Map;

/**
 * The settings of {@link Params#parse}: each key a component of {@link Params}, a whole number except {@code input}
 * and {@code weights} (a file name, or empty or {@code none} for the generated input and the seeded weights).
 */
final class Af2Settings {
  private Af2Settings() {
  }

  /** The keys, in the order of the record's components. */
  static final List<String> KEYS = List.of("nRes", "nSeq", "msaChannels", "pairChannels", "blocks",
      "msaHeads", "pairHeads", "outerChannels", "triangleChannels", "transitionFactor", "singleChannels",
      "chunkRows", "seed", "weightSeed", "input", "weights");
  /** Where the two long components, the seeds, stand among the numbers; the others are ints. */
  private static final int SEED = KEYS.indexOf("seed");
  private static final int WEIGHT_SEED = KEYS.indexOf("weightSeed");

  /** {@code p} with the settings of {@code spec} applied in order. */
  static Params apply(Params p, String spec) {
    Params q = p;
    for (Map.Entry<String, String> e : Settings.pairs(spec, "af2", KEYS).entrySet()) {
      q = with(q, e.getKey(), e.getValue());
    }
    return q;
  }

  private static Params with(Params p, String key, String value) {
    if (key.equals("input") || key.equals("weights")) {
      String s = value.isEmpty() || value.equals("none") ? null : value;
      return of(numbers(p), key.equals("input") ? s : p.input(), key.equals("weights") ? s : p.weights());
    }
    long x;
    try {
      x = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("af2 settings: " + key + " must be a whole number, got '" + value + "'");
    }
    int k = KEYS.indexOf(key);
    if (k != SEED && k != WEIGHT_SEED && (x < Integer.MIN_VALUE || x > Integer.MAX_VALUE)) {
      throw new IllegalArgumentException("af2 settings: " + key + " = " + value + " is out of range");
    }
    long[] v = numbers(p);
    v[k] = x;
    return of(v, p.input(), p.weights());
  }

  /** The numeric components of {@code p}, in the order of {@link #KEYS}. */
  private static long[] numbers(Params p) {
    return new long[] {p.nRes(), p.nSeq(), p.msaChannels(), p.pairChannels(), p.blocks(), p.msaHeads(),
        p.pairHeads(), p.outerChannels(), p.triangleChannels(), p.transitionFactor(), p.singleChannels(),
        p.chunkRows(), p.seed(), p.weightSeed()};
  }

  private static Params of(long[] v, String input, String weights) {
    return new Params((int) v[0], (int) v[1], (int) v[2], (int) v[3], (int) v[4], (int) v[5], (int) v[6],
        (int) v[7], (int) v[8], (int) v[9], (int) v[10], (int) v[11], v[12], v[13], input, weights);
  }
}
