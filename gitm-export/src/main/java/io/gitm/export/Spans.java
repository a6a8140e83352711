package io.gitm.export;

import io.gitm.run.Phase;
import io.gitm.search.TrialRecord;

/**
 * A run as spans: the run, one child per phase (a phase ends where the next begins), and under the apply phase one
 * span per trial (it ends when its verdict arrives and began the verdict's measured wall time before). Called on the
 * run's thread, in the order of the run's progress events.
 */
interface Spans {
  void run(String id, String device, String budget);

  void phase(Phase p);

  void trial(TrialRecord t);

  /** Ends whatever span is still open. */
  void end();

  static Spans none() {
    return new Spans() {
      @Override
      public void run(String id, String device, String budget) {}

      @Override
      public void phase(Phase p) {}

      @Override
      public void trial(TrialRecord t) {}

      @Override
      public void end() {}
    };
  }
}
