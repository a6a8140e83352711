package io.gitm.workloads.kit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A workload's settings string: comma-separated {@code key=value} pairs, each key one of the workload's. */
public final class Settings {
  private Settings() {
  }

  /**
   * Refuses an input option ({@code --input-option KEY=VALUE}) that is not one of {@code known}, naming it and the
   * known ones, in {@code workload}'s name.
   */
  public static void checkInputOptions(Map<String, String> options, String workload, List<String> known) {
    for (String k : options.keySet()) {
      if (!known.contains(k)) {
        throw new IllegalArgumentException(workload + ": unknown input option '" + k + "'; it takes " + String.join(
            ", ", known));
      }
    }
  }

  /**
   * The pairs of {@code spec} in order, blanks between commas skipped; refuses a part without a key, an unknown key
   * and a key given twice. Messages start with {@code workload + " settings: "}.
   */
  public static Map<String, String> pairs(String spec, String workload, List<String> keys) {
    Map<String, String> v = new LinkedHashMap<>();
    for (String part : spec.split(",")) {
      if (part.isBlank()) {
        continue;
      }
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(workload + " settings: '" + part.strip() + "' is not key=value (in '"
            + spec + "')");
      }
      String key = part.substring(0, eq).strip();
      if (!keys.contains(key)) {
        throw new IllegalArgumentException(workload + " settings: unknown key '" + key + "'; known: "
            + String.join(", ", keys));
      }
      if (v.put(key, part.substring(eq + 1).strip()) != null) {
        throw new IllegalArgumentException(workload + " settings: '" + key + "' given twice");
      }
    }
    return v;
  }
}
