package io.gitm.run;

import io.gitm.search.TrialRecord;
import java.time.Duration;

/**
 * What a run tells as it goes, in order, on the run's thread: its header, each phase as it starts, a line per step
 * done, and each trial as it starts and ends. The console prints them; the metrics exporter keeps them as metrics.
 */
public interface RunEvents {
  /**
   * The run has started.
   *
   * @param budget the budget and its phase windows, e.g. {@code 2m (profile 10s, …); target 15%}
   */
  void header(String run, String device, String budget);

  /** {@code p} starts; it may use up to {@code window}. */
  void phase(Phase p, Duration window);

  /** One line of what the run did, for people. */
  void line(String s);

  /** A trial ended with its verdict. */
  void trial(TrialRecord t, RunClock clock);

  /** A trial of the interrupted run that a resumed run takes over, told before the search goes on. */
  default void reused(TrialRecord t, RunClock clock) {
    trial(t, clock);
  }

  /** The agent starts a trial: {@code what} names it (e.g. {@code trial 3 pool-allocation}). */
  default void trialStarted(String what, RunClock clock) {}

  static RunEvents none() {
    return new RunEvents() {
      @Override
      public void header(String run, String device, String budget) {}

      @Override
      public void phase(Phase p, Duration window) {}

      @Override
      public void line(String s) {}

      @Override
      public void trial(TrialRecord t, RunClock clock) {}
    };
  }
}
