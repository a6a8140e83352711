package io.gitm.report;

import java.util.Locale;

/** Figures as the report prints them, independent of the default locale. */
final class Fmt {
  private Fmt() {}

  static String f(String pattern, Object... args) {
    return String.format(Locale.ROOT, pattern, args);
  }

  /** A fraction as a signed percentage: {@code 0.104} → {@code +10.4%}. */
  static String pct(double fraction) {
    double p = fraction * 100;
    String s = f("%.1f", Math.abs(p));
    if (s.equals("0.0")) {
      return "0.0%";
    }
    return (p < 0 ? "−" : "+") + s + "%";
  }

  /** A fraction as an unsigned percentage: {@code 0.62} → {@code 62.0%}. */
  static String share(double fraction) {
    return f("%.1f%%", fraction * 100);
  }

  /**
   * An estimate and its 95% interval: {@code +10.4% (95% CI +7.9% to +12.8%)}; an estimate whose interval is the
   * point itself (a figure chained from other measurements, not measured as one) says so instead of showing one.
   */
  static String pctCi(Report.Estimate e) {
    if (e.low() == e.value() && e.high() == e.value()) {
      return pct(e.value()) + " (no interval: not measured as one figure)";
    }
    return pct(e.value()) + " (95% CI " + pct(e.low()) + " to " + pct(e.high()) + ")";
  }

  /** A p-value: three significant digits, or {@code < 0.001}. */
  static String p(double p) {
    if (p < 0.001) {
      return "< 0.001";
    }
    return f("%.3f", p);
  }

  /** A number with an SI prefix: {@code 12170000} → {@code 12.17 M}; {@code 850} → {@code 850}. */
  static String si(double v) {
    double a = Math.abs(v);
    if (a >= 1e12) {
      return f("%.2f T", v / 1e12);
    }
    if (a >= 1e9) {
      return f("%.2f G", v / 1e9);
    }
    if (a >= 1e6) {
      return f("%.2f M", v / 1e6);
    }
    if (a >= 1e4) {
      return f("%.2f k", v / 1e3);
    }
    return num(v);
  }

  /** A value and its unit: {@code 12.17 M messages/s}, {@code 850 ms}. */
  static String value(double v, String unit) {
    return si(v) + " " + unit;
  }

  /** A plain number with up to four significant digits and no exponent for everyday magnitudes. */
  static String num(double v) {
    double a = Math.abs(v);
    if (v == Math.rint(v) && a < 1e15) {
      return f("%d", (long) v);
    }
    if (a >= 1000) {
      return f("%.0f", v);
    }
    if (a >= 100) {
      return f("%.1f", v);
    }
    if (a >= 10) {
      return f("%.2f", v);
    }
    if (a >= 0.001) {
      return f("%.3f", v);
    }
    return f("%.3g", v);
  }

  /** Milliseconds with three decimals: {@code 1.302 ms}. */
  /** A size in bytes: {@code 812 B}, {@code 85.4 KiB}, {@code 3.1 MiB}, {@code 12.0 GiB}. */
  static String bytes(long b) {
    if (b < 1024) {
      return b + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = b / 1024.0;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return f("%.1f %s", v, units[u]);
  }

  static String ms(double ms) {
    return f("%.3f ms", ms);
  }

  /** Wall-clock seconds for people: {@code 9.6 s}, {@code 1 min 58 s}, {@code 2 h 05 min}. */
  static String seconds(double s) {
    if (s < 60) {
      return f("%.1f s", s);
    }
    long whole = Math.round(s);
    if (whole < 3600) {
      return f("%d min %02d s", whole / 60, whole % 60);
    }
    return f("%d h %02d min", whole / 3600, (whole % 3600) / 60);
  }

  /** A trace duration in nanoseconds in the unit that suits it: {@code 850 ns}, {@code 12.4 µs}, {@code 1.30 ms}. */
  static String ns(double ns) {
    double a = Math.abs(ns);
    if (a < 1e3) {
      return f("%.0f ns", ns);
    }
    if (a < 1e6) {
      return f("%.1f µs", ns / 1e3);
    }
    if (a < 1e9) {
      return f("%.2f ms", ns / 1e6);
    }
    return f("%.2f s", ns / 1e9);
  }

  /** An evidence datum: numbers as {@link #num(double)}, lists as {@code [a, b]}, anything else as its text. */
  static String datum(Object o) {
    return switch (o) {
      case Double d -> num(d);
      case java.util.List<?> l ->
          l.stream().map(Fmt::datum).collect(java.util.stream.Collectors.joining(", ", "[", "]"));
      default -> String.valueOf(o);
    };
  }
}
