package io.gitm.run;

import io.gitm.search.TrialRecord;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The phases after the profile as the journal and the run's events see them: each phase's start and end (whose wall
 * time it keeps for the report), each trial, and the ranking. Entering the apply phase arms the run's stop control,
 * so that a stop requested before it interrupts the agent before its first trial.
 */
final class PhaseLog {
  private final RunJournal journal;
  private final RunEvents events;
  private final RunClock clock;
  private final RunLoop.Control control;
  private final Map<Phase, Duration> used = new EnumMap<>(Phase.class);

  PhaseLog(RunJournal journal, RunEvents events, RunClock clock, RunLoop.Control control) {
    this.journal = journal;
    this.events = events;
    this.clock = clock;
    this.control = control;
  }

  RunJournal journal() {
    return journal;
  }

  RunEvents events() {
    return events;
  }

  RunClock clock() {
    return clock;
  }

  RunLoop.Control control() {
    return control;
  }

  /** Wall time each phase took, as far as known. */
  Map<Phase, Duration> used() {
    return Collections.unmodifiableMap(used);
  }

  /** Keeps {@code u} as {@code phase}'s wall time without telling anyone. */
  void used(Phase phase, Duration u) {
    used.put(phase, u);
  }

  void started(Phase phase, Duration window) {
    if (phase == Phase.APPLY) {
      // a stop requested before the apply phase interrupts at once: the agent stops before its first trial
      control.enterApply();
    }
    events.phase(phase, window);
    journal.record("phase-start", Map.of("phase", name(phase), "seconds", window.toMillis() / 1000.0));
  }

  void ended(Phase phase, Duration u, String summary) {
    used.put(phase, u);
    events.line(name(phase) + " ".repeat(Math.max(1, 9 - phase.label().length())) + summary);
    journal.record("phase-end", Map.of("phase", name(phase), "seconds", u.toMillis() / 1000.0, "summary", summary));
  }

  void trialDone(TrialRecord t) {
    journal.record("trial", Map.of("trial", RunLoop.JSON.convertValue(t, Map.class)));
    events.trial(t, clock);
  }

  /**
   * The agent starts a trial.
   *
   * @param number the trial's number, from 1
   * @param what the levers tried, or what the trial measures
   */
  void trialStarted(int number, String what) {
    events.trialStarted("trial " + number + " " + what, clock);
  }

  /** The rank phase's result, once, before the first trial: journaled so that a resumed run ranks the same. */
  void ranked(Ranking ranking) {
    journal.record("ranked", Map.of("ranking", RunLoop.JSON.convertValue(ranking, Map.class)));
  }

  /** The run failed in {@code phase}; the run goes on to its report. */
  void failed(String phase, String error) {
    journal.record("failed", Map.of("phase", phase, "error", error));
  }

  private static String name(Phase phase) {
    return phase.label().toLowerCase(Locale.ROOT);
  }
}
