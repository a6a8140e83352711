package io.gitm.run;

import io.gitm.analysis.Analysis;
import io.gitm.search.Agent;

/** What attribute, rank and apply found and did, for the report. */
record Outcome(Analysis.Result analysis, Ranked ranked, Applied applied) {
  /** The search. */
  Agent.Result agent() {
    return applied.agent();
  }
}
