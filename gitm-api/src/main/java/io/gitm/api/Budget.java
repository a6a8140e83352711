package io.gitm.api;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A wall-clock limit for one optimization run, written as a sequence of number-unit pairs:
 * {@code 24h}, {@code 90m}, {@code 2m30s}, {@code 1d}, {@code 45s}. Units are d, h, m, s; each may appear once, in
 * that order.
 */
public record Budget(Duration duration) {

  /** The shortest budget that still gives each of the five phases at least one second. */
  public static final Duration MINIMUM = Duration.ofSeconds(30);

  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)([a-zA-Z]+)");

  public Budget {
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("budget must be positive");
    }
  }

  /** Parses a budget; the message of the exception is one line fit for a user. */
  public static Budget parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("budget is empty: give a duration such as 24h, 90m, 2m30s, 1d or 45s");
    }
    String s = text.strip();
    if (s.startsWith("-")) {
      throw new IllegalArgumentException("budget '" + text
          + "' is negative: give a positive duration such as 2m or 24h");
    }
    Matcher m = PART.matcher(s);
    int at = 0;
    int lastRank = -1;
    double seconds = 0;
    while (at < s.length()) {
      if (!m.find(at) || m.start() != at) {
        throw new IllegalArgumentException("budget '" + text
            + "' is not a duration: use numbers with units d, h, m, s (e.g. 24h, 2m30s)");
      }
      String unit = m.group(2).toLowerCase(java.util.Locale.ROOT);
      int rank = switch (unit) {
        case "d" -> 0;
        case "h" -> 1;
        case "m" -> 2;
        case "s" -> 3;
        default -> throw new IllegalArgumentException("budget '" + text + "' has unknown unit '" + m.group(2)
            + "': use d, h, m or s");
      };
      if (rank <= lastRank) {
        throw new IllegalArgumentException("budget '" + text
            + "' repeats or misorders units: write them largest first, each once (e.g. 1h30m)");
      }
      lastRank = rank;
      double n = Double.parseDouble(m.group(1));
      seconds += n * switch (rank) { case 0 -> 86400; case 1 -> 3600; case 2 -> 60; default -> 1; };
      at = m.end();
    }
    if (seconds <= 0) {
      throw new IllegalArgumentException("budget '" + text + "' is zero: give a positive duration such as 2m or 24h");
    }
    if (seconds > 365 * 86400.0) {
      throw new IllegalArgumentException("budget '" + text + "' is over a year");
    }
    return new Budget(Duration.ofMillis(Math.round(seconds * 1000)));
  }

  /** Fails with a user-facing message when this budget cannot hold the five phases. */
  public Budget requireRunnable() {
    if (duration.compareTo(MINIMUM) < 0) {
      throw new IllegalArgumentException("budget " + this + " is too short to hold the five phases: the minimum is "
          + MINIMUM.toSeconds() + "s");
    }
    return this;
  }

  @Override
  public String toString() {
    long s = duration.toSeconds();
    StringBuilder b = new StringBuilder();
    if (s >= 86400) { b.append(s / 86400).append('d'); s %= 86400; }
    if (s >= 3600) { b.append(s / 3600).append('h'); s %= 3600; }
    if (s >= 60) { b.append(s / 60).append('m'); s %= 60; }
    if (s > 0 || b.isEmpty()) { b.append(s).append('s'); }
    return b.toString();
  }
}
