package io.gitm.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.optimizer.attribution.Cause;
import io.gitm.optimizer.attribution.Differential;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scoring's differential ranking: a run against the same seed's fault-free run. kitti synchronizes once per frame,
 * a standing cause of about a tenth of its span in every run, which a small clock drop does not outweigh in the
 * absolute ranking; against the fault-free run it stays and the drop is what changed.
 */
class AttributionScoringDifferentialTest {
  @TempDir
  static Path data;

  @Test
  void aSmallClockDropOnKittiIsWhatChangedWhileItsPerFrameSynchronizationStands() {
    AttributionScoring.Options o = AttributionScoring.Options.defaults(AttributionScoring.job("kitti"));
    long seed = 3;
    AttributionScoring.Run clean = AttributionScoring.run(o, data, "", seed);
    // the harness's drawn clock drop of seed 3, mid-run
    AttributionScoring.Run slow = AttributionScoring.run(o, data,
        AttributionScoring.spec(o, "clock-drop", seed, clean.firstNs(), clean.jobNs()), seed);
    assertThat(clean.ranked()).contains(Cause.SYNCHRONOUS_HOST_CALLS);
    Differential.Result d = Differential.compare(clean.side(), slow.side());
    assertThat(d.unit()).isEqualTo(Differential.Unit.ITERATION);
    assertThat(d.ranked()).as("%s", d.changes()).isNotEmpty();
    assertThat(d.ranked().getFirst().cause()).as("%s", d.changes()).isEqualTo(Cause.CLOCK_DROP);
    assertThat(d.changes()).filteredOn(c -> c.cause() == Cause.SYNCHRONOUS_HOST_CALLS)
        .extracting(Differential.Change::status).containsExactly(Differential.Status.STANDING);
    assertThat(AttributionScoring.changed(clean.side(), slow)).startsWith(Cause.CLOCK_DROP);
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
