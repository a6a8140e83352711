package io.gitm.nvidia.nvml;

import io.gitm.api.Ticker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The NVML sampling benchmark: host time of one full {@link NvmlSampler#sample()} (every supported field, slow
 * fields on their cadence), after warm-up, per device. {@code main(OUT.json)} writes median, p10, p90, min, max.
 */
public final class NvmlSamplingBench {
  private NvmlSamplingBench() {
  }

  static double[] measure(NvmlSampler s, int warmup, int n) {
    for (int i = 0; i < warmup; i++) {
      s.sample();
    }
    double[] us = new double[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      s.sample();
      us[i] = (System.nanoTime() - t0) / 1e3;
    }
    return us;
  }

  public static void main(String[] args) throws Exception {
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
    List<NvmlSampler> all = NvmlSampler.all(Ticker.system());
    StringBuilder b = new StringBuilder("{\n  \"what\": \"host microseconds per full NvmlSampler.sample()\",\n"
        + "  \"devices\": [\n");
    for (int d = 0; d < all.size(); d++) {
      NvmlSampler s = all.get(d);
      double[] us = measure(s, 500, n);
      Arrays.sort(us);
      String line = String.format(Locale.ROOT, "    {\"index\": %d, \"name\": %s, \"n\": %d, \"median_us\": %.2f, "
          + "\"p10_us\": %.2f, \"p90_us\": %.2f, \"min_us\": %.2f, \"max_us\": %.2f, \"supported\": %s, "
          + "\"unsupported\": %s}", s.index(), NvmlJson.quote(s.name()), n, us[n / 2], us[n / 10], us[n * 9 / 10],
          us[0], us[n - 1], NvmlJson.quote(s.supported().toString()),
          NvmlJson.quote(s.unsupportedReasons().toString()));
      b.append(line).append(d + 1 < all.size() ? ",\n" : "\n");
      System.out.println(line.strip());
    }
    b.append("  ]\n}\n");
    if (args.length > 0) {
      Files.writeString(Path.of(args[0]), b.toString());
    }
  }
}
