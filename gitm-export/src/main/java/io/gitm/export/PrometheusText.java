package io.gitm.export;

import java.util.List;

/**
 * Families in the Prometheus text exposition format, version 0.0.4 (what dcgm-exporter serves): per family a
 * {@code # HELP} and a {@code # TYPE} line, then one line per point, {@code name{label="value",…} value}. Label
 * values escape backslash, double quote and line feed; help text escapes backslash and line feed. Values are written
 * as integers when they are whole (below 2<sup>53</sup>), otherwise as Java writes a double, with {@code NaN},
 * {@code +Inf} and {@code -Inf} spelled as the format does. A family with no point is left out.
 */
final class PrometheusText {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private PrometheusText() {
  }

  static String write(List<Family> families) {
    StringBuilder b = new StringBuilder(8192);
    for (Family f : families) {
      if (f.points().isEmpty()) {
        continue;
      }
      b.append("# HELP ").append(f.name()).append(' ');
      escape(f.help(), false, b);
      b.append('\n').append("# TYPE ").append(f.name()).append(' ').append(f.type().prometheus()).append('\n');
      for (Family.Point p : f.points()) {
        b.append(f.name());
        if (!p.labelNames().isEmpty()) {
          b.append('{');
          for (int i = 0; i < p.labelNames().size(); i++) {
            if (i > 0) {
              b.append(',');
            }
            b.append(p.labelNames().get(i)).append("=\"");
            escape(p.labelValues().get(i), true, b);
            b.append('"');
          }
          b.append('}');
        }
        b.append(' ');
        value(p.value(), b);
        b.append('\n');
      }
    }
    return b.toString();
  }

  static void value(double v, StringBuilder b) {
    if (Double.isNaN(v)) {
      b.append("NaN");
    } else if (v == Double.POSITIVE_INFINITY) {
      b.append("+Inf");
    } else if (v == Double.NEGATIVE_INFINITY) {
      b.append("-Inf");
    } else if (v == Math.rint(v) && Math.abs(v) < 0x1p53) {
      b.append((long) v);
    } else {
      b.append(v);
    }
  }

  private static void escape(String s, boolean quote, StringBuilder b) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '"' -> b.append(quote ? "\\\"" : "\"");
        default -> b.append(c);
      }
    }
  }

  /** Whether {@code name} is a valid metric name: {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. */
  static boolean validMetricName(String name) {
    return name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*");
  }

  /** Whether {@code name} is a valid label name: {@code [a-zA-Z_][a-zA-Z0-9_]*}, not starting with {@code __}. */
  static boolean validLabelName(String name) {
    return name.matches("[a-zA-Z_][a-zA-Z0-9_]*") && !name.startsWith("__");
  }
}
