package io.gitm.api;

/**
 * The improvement a run commits to, as a fraction of the baseline metric: {@code 0.15} means 15% better, {@code 1.5}
 * (150%) two and a half times the throughput. Written as {@code 15%} or {@code 0.15}; more than 0 and at most 1000%.
 */
public record Target(double fraction) {
  /** The largest target: ten times the baseline metric's improvement (1000%). */
  public static final double MAX = 10;

  public Target {
    if (!(fraction > 0 && fraction <= MAX)) {
      throw new IllegalArgumentException("target must be more than 0% and at most 1000%");
    }
  }

  /** Parses a target; the message of the exception is one line fit for a user. */
  public static Target parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("target is empty: give a fraction such as 15% or 0.15");
    }
    String s = text.strip();
    boolean percent = s.endsWith("%");
    String num = percent ? s.substring(0, s.length() - 1).strip() : s;
    double v;
    try {
      v = Double.parseDouble(num);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("target '" + text + "' is not a number: give a fraction such as 15% or 0.15");
    }
    if (!Double.isFinite(v) || num.matches(".*[a-zA-Z].*")) {
      throw new IllegalArgumentException("target '" + text + "' is not a number: give a fraction such as 15% or 0.15");
    }
    double f = percent ? v / 100 : v;
    if (!(f > 0 && f <= MAX)) {
      throw new IllegalArgumentException("target '" + text + "' is out of range: it must be more than 0% and at most"
          + " 1000%");
    }
    return new Target(f);
  }

  @Override
  public String toString() {
    double p = fraction * 100;
    return (p == Math.rint(p) ? String.valueOf((long) p) : String.valueOf(p)) + "%";
  }
}
