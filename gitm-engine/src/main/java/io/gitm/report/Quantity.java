package io.gitm.report;

import io.gitm.report.Report.Series;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a telemetry series is shown: its field as a reader names it ({@code SM clock}), its unit as printed
 * ({@code °C}, {@code GiB}) and the factor from the stored values to the shown ones. Byte counts are shown in MiB, or
 * in GiB from 1 GiB; rates of bytes in MB/s or GB/s; a temperature in degrees Celsius.
 *
 * @param scale what a stored value is multiplied by to be shown
 */
record Quantity(String label, String unit, double scale) {
  private static final double MIB = 1L << 20;
  private static final double GIB = 1L << 30;
  private static final Map<String, String> ACRONYMS = Map.of("sm", "SM", "gpu", "GPU", "pcie", "PCIe", "nvlink",
      "NVLink", "ecc", "ECC", "tx", "TX", "rx", "RX");

  /** How {@code s} is shown, given the largest magnitude among its values. */
  static Quantity of(Series s, double largest) {
    String label = label(s.field());
    return switch (s.unit()) {
      case "B" -> largest >= GIB ? new Quantity(label, "GiB", 1 / GIB) : new Quantity(label, "MiB", 1 / MIB);
      case "B/s" -> largest >= 1e9 ? new Quantity(label, "GB/s", 1e-9) : new Quantity(label, "MB/s", 1e-6);
      case "C" -> new Quantity(label, "°C", 1);
      default -> new Quantity(label, s.unit(), 1);
    };
  }

  /** {@code s} with its values in this quantity's unit. */
  Series apply(Series s) {
    List<Double> v = scale == 1 ? s.v() : s.v().stream().map(x -> x * scale).toList();
    return new Series(label, unit, s.t(), v);
  }

  /** A field's name as a sentence starts it, its acronyms in capitals: {@code sm clock} → {@code SM clock}. */
  static String label(String field) {
    String[] words = field.strip().split("[ _]+");
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words.length; i++) {
      String w = words[i];
      String a = ACRONYMS.get(w.toLowerCase(Locale.ROOT));
      if (a != null) {
        w = a;
      } else if (i == 0 && !w.isEmpty()) {
        w = w.substring(0, 1).toUpperCase(Locale.ROOT) + w.substring(1);
      }
      b.append(i == 0 ? "" : " ").append(w);
    }
    return b.toString();
  }
}
