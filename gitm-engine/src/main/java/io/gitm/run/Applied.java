package io.gitm.run;

import io.gitm.search.Agent;
import io.gitm.search.TrialRecord;
import java.util.List;

/**
 * What the apply phase did.
 *
 * @param agent the search and its trials (reused ones included)
 * @param earlierNotReused the interrupted run's trials that the resumed search did not come to, in their order
 */
record Applied(Agent.Result agent, List<TrialRecord> earlierNotReused) {
  Applied {
    earlierNotReused = List.copyOf(earlierNotReused);
  }
}
