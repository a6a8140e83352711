package io.gitm.analysis.attribution;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.Analysis;
import io.gitm.analysis.monitor.Monitor;
import io.gitm.device.HardwareSpec;
import io.gitm.planner.Graph;
import io.gitm.planner.Planner;
import io.gitm.sim.SimSpec;
import io.gitm.stats.Granger;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The neighbour condition (a kernel starting in a state sample interval with another process on the device) on the
 * simulated job of {@link SyntheticJob}, whose samples report the noisy-neighbour fault's tenant while it is active.
 */
class NeighbourConditionTest {
  private static final HardwareSpec HW = SimSpec.preset("h200").hardware();

  private static Evidence neighbourEvidence(Hypothesis h) {
    return h.evidence().stream().filter(e -> e.kind().equals("aipw")
        && Conditions.Condition.NEIGHBOUR.label.equals(e.data().get("condition"))).findFirst().orElseThrow();
  }

  private static Conditions.Estimate neighbour(List<TraceRecord> t) {
    Graph g = Planner.predict(t, HW);
    Monitor.Result m = Monitor.check(g, t, HW.launchLatencyNs());
    Input in = Input.of(t, g, m, HW);
    return Conditions.estimates(in, EnumSet.of(Cause.CONTENTION)).stream()
        .filter(x -> x.condition() == Conditions.Condition.NEIGHBOUR).findFirst().orElseThrow();
  }

  @Test
  void aNeighbourHoldingHalfTheDeviceForPartOfTheRunSlowsTheKernelsThatShareIt() {
    // 200 iterations of about 0.6 ms; the tenant holds 66 of the 132 SMs from 40 ms for 40 ms
    for (long seed = 1; seed <= 2; seed++) {
      TraceMeta[] meta = new TraceMeta[1];
      List<TraceRecord> t = SyntheticJob.run("noisy-neighbour@40ms:sms=66:duration=40ms", seed, 200, 20e9, meta);
      Hypothesis h = Analysis.analyze(meta[0], t, HW).hypotheses().stream()
          .filter(x -> x.cause() == Cause.CONTENTION).findFirst().orElseThrow();
      Evidence e = neighbourEvidence(h);
      System.out.println("seed " + seed + ": " + e.summary());
      assertThat(e.data()).as(e.summary()).containsEntry("testable", true).containsEntry("significant", true);
      assertThat((Double) e.data().get("factor")).isGreaterThan(1.0);
      assertThat((Double) e.data().get("ciLow")).isGreaterThan(1.0);
      assertThat(e.summary()).contains("a neighbour in");
      // the neighbour's SM use is a telemetry series of the Granger matrix, evidence for contention
      assertThat(h.evidence()).filteredOn(x -> x.kind().equals("granger")
          && "neighbour SM use".equals(x.data().get("x"))).hasSize(2)
          .allSatisfy(x -> System.out.println(x.summary()));
    }
  }

  @Test
  void aNeighbourThatTakesNothingIsNotSignificant() {
    // the fault-free job, its samples edited to report an idle tenant in a random third of the intervals
    TraceMeta[] meta = new TraceMeta[1];
    SplittableRandom rnd = new SplittableRandom(3);
    List<TraceRecord> t = new ArrayList<>();
    for (TraceRecord r : SyntheticJob.run("", 1, 200, 20e9, meta)) {
      if (r instanceof StateSample s && rnd.nextInt(3) == 0) {
        double[] v = s.values();
        v[StateField.OTHER_PROCESSES.ordinal()] = 1;
        r = new StateSample(s.device(), s.timeNs(), v);
      }
      t.add(r);
    }
    Conditions.Estimate e = neighbour(t);
    System.out.println("idle tenant: " + Conditions.evidence(e, 1).summary());
    assertThat(e.effect()).isNotNull();
    assertThat(e.effect().nTreated()).isPositive();
    assertThat(e.significant()).isFalse();
    assertThat(Math.exp(e.effect().ciLow())).isLessThan(1.0);
    assertThat(Math.exp(e.effect().ciHigh())).isGreaterThan(1.0);
  }

  @Test
  void aRunAloneOnTheDeviceSaysNoNeighbourWasSeen() {
    TraceMeta[] meta = new TraceMeta[1];
    List<TraceRecord> t = SyntheticJob.run("", 1, 200, 20e9, meta);
    Conditions.Estimate e = neighbour(t);
    assertThat(e.effect()).isNull();
    assertThat(e.reason()).startsWith("no neighbour seen: all 201 state samples with the other-process fields");
  }

  @Test
  void aTraceWithoutTheProcessFieldsSaysSoInsteadOfCallingTheJobAlone() {
    List<TraceRecord> t = withoutProcessFields();
    Conditions.Estimate e = neighbour(t);
    assertThat(e.effect()).isNull();
    assertThat(e.reason()).startsWith("no state sample of the trace holds the other-process fields");
    Hypothesis h = Analysis.analyze(meta(), t, HW).hypotheses().stream()
        .filter(x -> x.cause() == Cause.CONTENTION).findFirst().orElseThrow();
    // no neighbour SM use series either: the Granger matrix has no pair for contention
    assertThat(h.evidence()).noneMatch(x -> x.kind().equals("granger"));
  }

  private static TraceMeta meta() {
    TraceMeta[] meta = new TraceMeta[1];
    SyntheticJob.run("", 1, 1, 20e9, meta);
    return meta[0];
  }

  /** The neighbour run as a trace written before the fields existed would hold it: samples without them. */
  private static List<TraceRecord> withoutProcessFields() {
    TraceMeta[] meta = new TraceMeta[1];
    List<TraceRecord> t = new ArrayList<>();
    for (TraceRecord r : SyntheticJob.run("noisy-neighbour@40ms:sms=66:duration=40ms", 1, 200, 20e9, meta)) {
      if (r instanceof StateSample s) {
        Map<StateField, Double> old = new EnumMap<>(s.present());
        old.remove(StateField.OTHER_PROCESSES);
        old.remove(StateField.OTHER_SM_UTILIZATION);
        r = StateSample.of(s.device(), s.timeNs(), old);
      }
      t.add(r);
    }
    return t;
  }
}
