package io.gitm.run;

import io.gitm.store.RunDir;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a target's profile found: the shipped setup's baseline, what a reader of the report should know about it,
 * and facts the levers read beyond the trace's (a process job's busy processes).
 */
record Profile(Profiler.Baseline baseline, List<String> notes, Map<String, Double> facts) {
  Profile {
    notes = List.copyOf(notes);
    facts = Collections.unmodifiableMap(new LinkedHashMap<>(facts));
  }

  /** This profile with {@code more} facts, which win over the ones it had. */
  Profile withFacts(Map<String, Double> more) {
    Map<String, Double> all = new LinkedHashMap<>(facts);
    all.putAll(more);
    return new Profile(baseline, notes, all);
  }

  /**
   * What a target profiles with.
   *
   * @param tracePath where the run's trace is written
   * @param window wall time the profile may take
   * @param journal where a failure is journaled before the run stops
   */
  record Input(RunDir run, Path tracePath, Duration window, RunClock clock, RunLoop.Control control,
      RunJournal journal) {}
}
