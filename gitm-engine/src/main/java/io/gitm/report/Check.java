package io.gitm.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** Argument checks of the report model; each failure is an {@link IllegalArgumentException} with one line. */
final class Check {
  private Check() {}

  static String text(String s, String what) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException(what + " is missing or blank");
    }
    return s;
  }

  static String optionalText(String s, String what) {
    if (s != null && s.isBlank()) {
      throw new IllegalArgumentException(what + " is blank: leave it null when there is none");
    }
    return s;
  }

  static <T> T present(T o, String what) {
    if (o == null) {
      throw new IllegalArgumentException(what + " is missing");
    }
    return o;
  }

  static double finite(double v, String what) {
    if (!Double.isFinite(v)) {
      throw new IllegalArgumentException(what + " is " + v + ": it must be a finite number");
    }
    return v;
  }

  static Double optionalFinite(Double v, String what) {
    return v == null ? null : finite(v, what);
  }

  static double nonNegative(double v, String what) {
    if (!(Double.isFinite(v) && v >= 0)) {
      throw new IllegalArgumentException(what + " is " + v + ": it must be a finite number of at least 0");
    }
    return v;
  }

  static long nonNegative(long v, String what) {
    if (v < 0) {
      throw new IllegalArgumentException(what + " is " + v + ": it must be at least 0");
    }
    return v;
  }

  static double probability(double v, String what) {
    if (!(v >= 0 && v <= 1)) {
      throw new IllegalArgumentException(what + " is " + v + ": it must lie between 0 and 1");
    }
    return v;
  }

  /** An unmodifiable copy; {@code null} stands for the empty list, a {@code null} element is refused. */
  static <T> List<T> list(List<T> l, String what) {
    if (l == null) {
      return List.of();
    }
    List<T> out = new ArrayList<>(l.size());
    for (int i = 0; i < l.size(); i++) {
      out.add(present(l.get(i), what + "[" + i + "]"));
    }
    return Collections.unmodifiableList(out);
  }

  /** Refuses a list whose keys repeat. */
  static <T> void unique(List<T> l, Function<T, ?> key, String what) {
    Set<Object> seen = new HashSet<>();
    for (T t : l) {
      Object k = key.apply(t);
      if (!seen.add(k)) {
        throw new IllegalArgumentException(what + " '" + k + "' appears more than once");
      }
    }
  }
}
