package io.gitm.run;

import io.gitm.api.Budget;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a run does before its budget is split into phases, each part with the wall time it took: gitm's start and the
 * device's opening (everything up to the run's request), then the target's own set-up (a managed workload's dataset
 * read or generated, its kernels loaded and its run-long memory allocated). The phases share what the budget has
 * left after it.
 *
 * @param parts each part's wall time, in the order they were done
 */
public record SetUp(Map<String, Duration> parts) {
  /** The part from gitm's start to the run's request: parsing the command and opening the device. */
  public static final String START_UP = "start-up and device";
  /** The least time the five phases need after set-up: a report reserve, and room to profile and try a lever. */
  public static final Duration PHASES_LEAST = Duration.ofSeconds(10);

  public SetUp {
    parts = Collections.unmodifiableMap(new LinkedHashMap<>(parts));
  }

  /** {@code startUp} followed by the target's own parts. */
  static SetUp of(Duration startUp, Map<String, Duration> target) {
    Map<String, Duration> all = new LinkedHashMap<>();
    all.put(START_UP, startUp);
    all.putAll(target);
    return new SetUp(all);
  }

  /** The wall time of every part together. */
  public Duration total() {
    return parts.values().stream().reduce(Duration.ZERO, Duration::plus);
  }

  /** The set-up as a person reads it: {@code 3.2s (start-up and device 0.4s, workload and dataset 2.8s)}. */
  public String describe() {
    return seconds(total()) + " (" + parts.entrySet().stream().map(e -> e.getKey() + " " + seconds(e.getValue()))
        .collect(Collectors.joining(", ")) + ")";
  }

  /** The set-up as the journal's start entry keeps it: its seconds, and each part's. */
  Map<String, Object> json() {
    Map<String, Object> p = new LinkedHashMap<>();
    parts.forEach((k, v) -> p.put(k, v.toMillis() / 1000.0));
    return Map.of("seconds", total().toMillis() / 1000.0, "parts", p);
  }

  /** The set-up's seconds kept by {@link #json()} in {@code data}, a journal entry's; zero when it has none. */
  static Duration journaled(Map<String, Object> data) {
    if (data != null && data.get("setUp") instanceof Map<?, ?> m && m.get("seconds") instanceof Number n) {
      return Duration.ofMillis(Math.round(n.doubleValue() * 1000));
    }
    return Duration.ZERO;
  }

  /**
   * Why {@code budget} cannot hold its phases after this set-up, or null when it can: the set-up's time, and the
   * smallest budget that leaves the phases {@link #PHASES_LEAST} (in whole 5 s, and never under the minimum).
   */
  String tooLongFor(Budget budget) {
    Duration left = budget.duration().minus(total());
    if (left.compareTo(PHASES_LEAST) >= 0) {
      return null;
    }
    long need = (total().plus(PHASES_LEAST).toMillis() + 4999) / 5000 * 5;
    Budget least = new Budget(Duration.ofSeconds(Math.max(Budget.MINIMUM.toSeconds(), need)));
    return "set-up took " + describe() + " of the " + budget + " budget, leaving less than the "
        + PHASES_LEAST.toSeconds() + "s the phases need: give --budget " + least + " or more";
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
  }
}
