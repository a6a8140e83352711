package io.gitm.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.Differential;
import io.gitm.analysis.attribution.Cause;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scoring's differential ranking: a run against the same seed's fault-free run. af2 at the scored sizes is bound
 * by the host's launches, a standing cause of its own in every run (`LAUNCH_BOUND_HOST`); a synchronization stall
 * every few launches adds a few percent, and against the fault-free run the launch gaps stand while the stall is what
 * changed.
 */
class AttributionScoringDifferentialTest {
  @TempDir
  static Path data;

  @Test
  void aSmallStallOnAf2IsWhatChangedWhileItsLaunchBoundHostStands() {
    AttributionScoring.Options o = AttributionScoring.Options.defaults(AttributionScoring.job("af2"));
    int judged = 0;
    for (long seed = 1; seed <= 4; seed++) {
      AttributionScoring.Run clean = AttributionScoring.run(o, data, "", seed);
      // the harness's drawn stall of this seed, mid-run
      AttributionScoring.Run slow = AttributionScoring.run(o, data,
          AttributionScoring.spec(o, "sync-stall", seed, clean.firstNs(), clean.jobNs()), seed);
      assertThat(clean.ranked()).contains(Cause.LAUNCH_BOUND_HOST);
      if ((double) slow.jobNs() / clean.jobNs() - 1 < o.inertBelow()) {
        continue;
      }
      judged++;
      Differential.Result d = Differential.compare(clean.side(), slow.side());
      assertThat(d.unit()).isEqualTo(Differential.Unit.ITERATION);
      assertThat(d.ranked()).as("seed %d: %s", seed, d.changes()).isNotEmpty();
      assertThat(d.ranked().getFirst().cause()).as("seed %d: %s", seed, d.changes())
          .isEqualTo(Cause.SYNCHRONOUS_HOST_CALLS);
      assertThat(d.changes()).as("seed %d", seed).filteredOn(c -> c.cause() == Cause.LAUNCH_BOUND_HOST)
          .extracting(Differential.Change::status).containsExactly(Differential.Status.STANDING);
      assertThat(AttributionScoring.changed(clean.side(), slow)).startsWith(Cause.SYNCHRONOUS_HOST_CALLS);
    }
    assertThat(judged).as("seeds whose stall slowed af2 by 2% or more").isPositive();
  }

  @Test
  void theTablesCarryTheDifferentialBesideTheAbsoluteScores() {
    AttributionScoring.Options o = AttributionScoring.Options.defaults().withSeeds(2, 0, 3)
        .withFaults(List.of("sync-stall", "clock-drop"));
    AttributionScoring.Report r = AttributionScoring.score(o, data, null);
    String md = AttributionScoring.markdown(r);
    List<String> rows = md.lines().toList();
    assertThat(rows.getFirst()).contains("| top-1 | top-2 | differential top-1 | differential top-2 |");
    int columns = rows.getFirst().split("\\|", -1).length;
    assertThat(rows).allMatch(l -> l.split("\\|", -1).length == columns, "every row has the header's columns");
    assertThat(r.cleanCompared()).isEqualTo(2);
    assertThat(r.faults()).allMatch(f -> f.diffTop1() <= f.diffTop2() && f.diffTop2() <= f.scored());
    assertThat(AttributionScoring.overall(List.of(r, r)).lines().toList()).hasSize(2)
        .anyMatch(l -> l.startsWith("differential (hft-lob, hft-lob): alone top-1 "));
  }
}
