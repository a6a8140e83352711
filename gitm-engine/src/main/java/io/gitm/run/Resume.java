package io.gitm.run;

import io.gitm.search.TrialRecord;
import io.gitm.store.Journal;
import io.gitm.store.RunDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a resumed run takes over from the interrupted one's journal and folder.
 *
 * @param profiled whether its profile phase ended with its trace and baseline written, so it is not run again
 * @param completed its trials, in order, which the agent reuses instead of running them again
 * @param ranking its ranking, which a resumed search follows
 */
record Resume(boolean profiled, List<TrialRecord> completed, Optional<Ranking> ranking) {
  Resume {
    completed = List.copyOf(completed);
  }

  /** What {@code previous} (null for a fresh run) leaves to take over in {@code run}. */
  static Resume of(Journal.Contents previous, RunDir run) {
    if (previous == null) {
      return new Resume(false, List.of(), Optional.empty());
    }
    Path dir = run.dir();
    boolean profiled = previous.entries().stream()
        .anyMatch(e -> e.type().equals("phase-end") && "profile".equals(e.data().get("phase")))
        && Files.isRegularFile(dir.resolve(ProfileStep.TRACE))
        && Files.isRegularFile(dir.resolve(ProfileStep.BASELINE));
    List<TrialRecord> completed = new ArrayList<>();
    Ranking ranking = null;
    for (Journal.Entry e : previous.entries()) {
      if (e.type().equals("trial")) {
        completed.add(RunLoop.JSON.convertValue(e.data().get("trial"), TrialRecord.class));
      } else if (e.type().equals("ranked")) {
        ranking = RunLoop.JSON.convertValue(e.data().get("ranking"), Ranking.class);
      }
    }
    return new Resume(profiled, completed, Optional.ofNullable(ranking));
  }
}
