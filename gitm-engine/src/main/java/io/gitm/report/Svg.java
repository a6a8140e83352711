package io.gitm.report;

import java.util.Locale;

/**
 * A small writer of inline SVG: shapes, text and tooltips, styled by CSS classes of the page. Every piece of text
 * and every attribute value passes through {@link Html#escape(String)}; coordinates are written with one decimal.
 */
final class Svg {
  /** Where a text's x coordinate lies on it. */
  enum Anchor {
    START, MIDDLE, END;

    String css() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final StringBuilder b = new StringBuilder(4096);
  private final double width;
  private final double height;

  /** An SVG {@code width × height} pixels wide, described for screen readers by {@code label}. */
  Svg(double width, double height, String cssClass, String label) {
    this.width = width;
    this.height = height;
    b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart ").append(Html.escape(cssClass))
        .append("\" viewBox=\"0 0 ").append(n(width)).append(' ').append(n(height)).append("\" width=\"")
        .append(n(width)).append("\" height=\"").append(n(height)).append("\" role=\"img\" aria-label=\"")
        .append(Html.escape(label)).append("\">");
    b.append("<title>").append(Html.escape(label)).append("</title>");
  }

  double width() {
    return width;
  }

  double height() {
    return height;
  }

  Svg rect(double x, double y, double w, double h, String cls, String tooltip) {
    return rect(x, y, w, h, 1, cls, tooltip);
  }

  /** A rectangle drawn with {@code opacity} (0..1) of its fill. */
  Svg rect(double x, double y, double w, double h, double opacity, String cls, String tooltip) {
    b.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(Math.max(0, w)))
        .append("\" height=\"").append(n(Math.max(0, h))).append('"');
    if (opacity < 1) {
      b.append(" fill-opacity=\"").append(String.format(Locale.ROOT, "%.2f", Math.max(0, opacity))).append('"');
    }
    return close("rect", cls, tooltip);
  }

  Svg line(double x1, double y1, double x2, double y2, String cls) {
    b.append("<line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"").append(n(x2))
        .append("\" y2=\"").append(n(y2)).append('"');
    return close("line", cls, null);
  }

  Svg circle(double cx, double cy, double r, String cls, String tooltip) {
    b.append("<circle cx=\"").append(n(cx)).append("\" cy=\"").append(n(cy)).append("\" r=\"").append(n(r)).append('"');
    return close("circle", cls, tooltip);
  }

  /** A diamond centred on (cx, cy) with half-diagonal {@code r}. */
  Svg diamond(double cx, double cy, double r, String cls, String tooltip) {
    b.append("<polygon points=\"").append(n(cx)).append(',').append(n(cy - r)).append(' ').append(n(cx + r)).append(',')
        .append(n(cy)).append(' ').append(n(cx)).append(',').append(n(cy + r)).append(' ').append(n(cx - r)).append(',')
        .append(n(cy)).append('"');
    return close("polygon", cls, tooltip);
  }

  /** A line through the points (xs[i], ys[i]) for i below {@code count}. */
  Svg polyline(double[] xs, double[] ys, int count, String cls) {
    b.append("<polyline points=\"");
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        b.append(' ');
      }
      b.append(n(xs[i])).append(',').append(n(ys[i]));
    }
    b.append('"');
    return close("polyline", cls, null);
  }

  Svg text(double x, double y, String text, String cls, Anchor anchor) {
    return text(x, y, text, cls, anchor, null);
  }

  /** A text; {@code tooltip}, when given, shows on hover (e.g. the whole of a shortened name). */
  Svg text(double x, double y, String text, String cls, Anchor anchor, String tooltip) {
    b.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append('"');
    if (anchor != Anchor.START) {
      b.append(" text-anchor=\"").append(anchor.css()).append('"');
    }
    if (cls != null) {
      b.append(" class=\"").append(Html.escape(cls)).append('"');
    }
    b.append('>');
    if (tooltip != null) {
      b.append("<title>").append(Html.escape(tooltip)).append("</title>");
    }
    b.append(Html.escape(text)).append("</text>");
    return this;
  }

  String end() {
    return b.append("</svg>").toString();
  }

  private Svg close(String element, String cls, String tooltip) {
    if (cls != null) {
      b.append(" class=\"").append(Html.escape(cls)).append('"');
    }
    if (tooltip == null) {
      b.append("/>");
    } else {
      b.append("><title>").append(Html.escape(tooltip)).append("</title></").append(element).append('>');
    }
    return this;
  }

  /** A coordinate with at most one decimal. */
  static String n(double v) {
    if (!Double.isFinite(v)) {
      throw new IllegalArgumentException("chart coordinate is " + v);
    }
    long tenths = Math.round(v * 10);
    if (tenths % 10 == 0) {
      return Long.toString(tenths / 10);
    }
    return (tenths < 0 ? "-" : "") + Math.abs(tenths) / 10 + "." + Math.abs(tenths) % 10;
  }
}
