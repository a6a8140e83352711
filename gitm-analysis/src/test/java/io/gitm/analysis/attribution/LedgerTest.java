package io.gitm.analysis.attribution;

import static io.gitm.analysis.Records.HW;
import static io.gitm.analysis.Records.kernel;
import static io.gitm.analysis.Records.work;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.analysis.monitor.Monitor;
import io.gitm.planner.Graph;
import io.gitm.planner.Planner;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceRecord;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/** The ledger: one owner per cause, and evidence alone from anyone. */
class LedgerTest {
  /** A detector that declares {@code causes} and runs {@code body}. */
  private record Probe(Set<Cause> causes, BiConsumer<Input, Ledger> body) implements Detector {
    @Override
    public void detect(Input in, Ledger out) {
      body.accept(in, out);
    }
  }

  private static final Evidence NOTE = new Evidence("trace", "a note", Map.of());

  @Test
  void aSecondDetectorWritingACauseAnotherOwnsIsRefused() {
    Ledger ledger = new Ledger();
    ledger.run(new Probe(EnumSet.of(Cause.CONTENTION), (in, out) -> out.lost(Cause.CONTENTION)), null);
    Probe second = new Probe(EnumSet.of(Cause.CONTENTION, Cause.FALSE_SERIALIZATION),
        (in, out) -> out.lost(Cause.CONTENTION));
    assertThatThrownBy(() -> ledger.run(second, null)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("CONTENTION is owned by");
    assertThat(ledger.entries()).containsOnlyKeys(Cause.CONTENTION);
  }

  @Test
  void theOwnerMayReturnToItsCauseWithinOneRun() {
    Ledger ledger = new Ledger();
    ledger.run(new Probe(EnumSet.of(Cause.CONTENTION), (in, out) -> {
      Lost first = out.lost(Cause.CONTENTION);
      assertThat(out.lost(Cause.CONTENTION)).isSameAs(first);
    }), null);
    assertThat(ledger.has(Cause.CONTENTION)).isTrue();
  }

  @Test
  void aCauseTheDetectorDoesNotDeclareIsRefused() {
    Ledger ledger = new Ledger();
    Probe p = new Probe(EnumSet.of(Cause.CLOCK_DROP), (in, out) -> out.lost(Cause.POWER_BRAKE));
    assertThatThrownBy(() -> ledger.run(p, null)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not declare");
    assertThat(ledger.has(Cause.POWER_BRAKE)).isFalse();
  }

  @Test
  void lostTimeOutsideADetectorIsRefused() {
    assertThatThrownBy(() -> new Ledger().lost(Cause.CONTENTION)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anyPassMayAddEvidenceToAnOpenedCauseButOpensNone() {
    Ledger ledger = new Ledger();
    ledger.run(new Probe(EnumSet.of(Cause.CONTENTION), (in, out) -> out.lost(Cause.CONTENTION)), null);
    ledger.run(new Probe(Set.of(), (in, out) -> {
      assertThat(out.note(Cause.CONTENTION, NOTE)).isTrue();
      assertThat(out.note(Cause.COLD_START, NOTE)).isFalse();
    }), null);
    assertThat(ledger.entries().get(Cause.CONTENTION).evidence()).containsExactly(NOTE);
    assertThat(ledger.has(Cause.COLD_START)).isFalse();
  }

  @Test
  void everyCauseOfTheRegisteredDetectorsHasOneOwner() {
    List<TraceRecord> t = List.of(kernel("gemm", 7, 1, 0, 1_000_000, 1000),
        work("gemm", 7, 1, 0, 1e10, Precision.FP32, 1000));
    Graph g = Planner.predict(t, HW);
    Input in = Input.of(t, g, Monitor.check(g, t, HW.launchLatencyNs()), HW);
    Map<Cause, String> owner = new EnumMap<>(Cause.class);
    for (Detector d : Attribution.detectors(in)) {
      for (Cause c : d.causes()) {
        assertThat(owner.put(c, d.getClass().getSimpleName())).as("%s", c).isNull();
      }
    }
  }
}
