package io.gitm.rank;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.levers.Lever;
import io.gitm.levers.Levers;
import io.gitm.sim.SimSpec;
import io.gitm.testkit.Fixtures;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.TraceReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Counterfactual replay of hft-lob's shipped trace recorded on the H200 (CUPTI, 2026-11-30). */
class CounterfactualTest {
  static Counterfactual cf;

  @BeforeAll
  static void replayTheRealTrace() throws Exception {
    List<TraceRecord> all = new ArrayList<>();
    Path p = Fixtures.file("/tracer/real/hft-lob-h200-cupti.gtrace");
    try (TraceReader r = TraceReader.open(p)) {
      r.iterator().forEachRemaining(all::add);
    }
    cf = Counterfactual.of(all, SimSpec.preset("h200")).orElseThrow();
  }

  @Test
  void aLeverOnTopOfNothingIsTheLeverAlone() {
    Lever pinned = Levers.byId("pinned-host-memory");
    assertThat(cf.predictOnTop(pinned, List.of())).isEqualTo(cf.predict(pinned));
  }

  @Test
  void theSameSavingIsALargerGainOnAJobTheKeptLeversAlreadyMadeFaster() {
    Lever pinned = Levers.byId("pinned-host-memory");
    Counterfactual.Prediction alone = cf.predict(pinned);
    Counterfactual.Prediction onTop = cf.predictOnTop(pinned, List.of(Levers.byId("pool-allocation"),
        Levers.byId("preallocate")));
    assertThat(alone.gain()).isPositive();
    assertThat(onTop.modelled()).isTrue();
    assertThat(onTop.gain()).as("pinned copies after the allocations are gone").isGreaterThan(alone.gain());
  }

  @Test
  void aKeptLeverReplayDoesNotModelChangesNothing() {
    Lever pinned = Levers.byId("pinned-host-memory");
    assertThat(cf.predictOnTop(pinned, List.of(Levers.byId("streams-2"))).gain())
        .isEqualTo(cf.predict(pinned).gain());
    assertThat(cf.predictOnTop(Levers.byId("streams-2"), List.of(pinned)).modelled()).isFalse();
  }
}
