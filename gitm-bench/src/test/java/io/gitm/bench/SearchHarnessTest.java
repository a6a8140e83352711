package io.gitm.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.bench.SearchHarness.Comparison;
import io.gitm.bench.SearchHarness.Measured;
import io.gitm.bench.SearchHarness.Scenario;
import io.gitm.bench.SearchHarness.Settings;
import io.gitm.bench.SyntheticScenario.Effect;
import io.gitm.bench.SyntheticScenario.MarkerLever;
import io.gitm.bench.SyntheticScenario.Model;
import io.gitm.bench.SyntheticScenario.ModelJob;
import io.gitm.bench.SyntheticScenario.Role;
import io.gitm.job.Job;
import io.gitm.job.TrialFailure;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.search.Gate;
import io.gitm.search.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The comparison itself, on a three-lever synthetic job, with and without a ground truth. */
class SearchHarnessTest {
  /** Time 1 = 0.5 fixed + 0.5 that "fast" halves; "slow" scales it by 1.3; "corrupt" by 0.4 with changed output. */
  private static final Model MODEL = new Model(0.5, new double[] {0.5, 0, 0}, Map.of(
      "fast", new Effect(Role.HELPFUL, 0, 0.5), "slow", new Effect(Role.HARMFUL, 0, 1.3),
      "corrupt", new Effect(Role.CORRUPTING, 0, 0.4)), Set.of(), 0, 1, 0.02);
  private static final List<Lever> LEVERS = List.of(new MarkerLever("corrupt"), new MarkerLever("fast"),
      new MarkerLever("slow"));
  private static final Settings SETTINGS = new Settings(Gate.Options.defaults(), 3, 7, 1);

  /** A job that counts how often it was made and closed. */
  static final class Counted implements Job, AutoCloseable {
    final ModelJob job;
    final AtomicInteger closed;

    Counted(long seed, AtomicInteger closed) {
      this.job = new ModelJob(MODEL, seed);
      this.closed = closed;
    }

    @Override
    public String metric() {
      return job.metric();
    }

    @Override
    public boolean higherIsBetter() {
      return true;
    }

    @Override
    public Run open(Setup setup) throws TrialFailure {
      return job.open(setup);
    }

    @Override
    public void close() {
      closed.incrementAndGet();
    }
  }

  private static Scenario scenario(boolean truth, AtomicInteger made, AtomicInteger closed) {
    List<Candidate> predictions = LEVERS.stream().map(l -> Candidate.replay(l,
        MODEL.speedup(Set.of(l.id())), 0.04)).toList();
    return new Scenario("three", "", () -> new Counted(made.incrementAndGet(), closed), Setup.shipped(), LEVERS,
        predictions, new LeverContext(null, null, List.of(), Map.of(), false), 0.2,
        truth ? s -> MODEL.speedup(MarkerLever.marked(s)) : null);
  }

  @Test
  void theOracleGatesEveryNonEmptyCombinationAgainstTheOriginal() {
    Comparison c = SearchHarness.compare(scenario(true, new AtomicInteger(), new AtomicInteger()), SETTINGS);

    assertThat(c.oracleTrials()).hasSize(7);
    assertThat(c.oracleTrials()).extracting(m -> Set.copyOf(m.levers())).doesNotHaveDuplicates();
    assertThat(c.oracleTrials()).filteredOn(m -> m.levers().contains("corrupt"))
        .extracting(Measured::outcome).containsOnly(Verdict.Outcome.OUTPUT_CHANGED);
    assertThat(c.oracle().trials()).isEqualTo(7);
    assertThat(c.oracleRun().levers()).containsExactly("fast");
    assertThat(c.oracle().speedup()).isEqualTo(MODEL.speedup(Set.of("fast")));
  }

  @Test
  void theCostCountsMeasuredPairsAndTheSequentialGateSpendsFewerOnClearEffects() {
    Comparison fixed = SearchHarness.compare(scenario(true, new AtomicInteger(), new AtomicInteger()),
        SETTINGS.withGate(Gate.Options.defaults().fixed(8)));
    Comparison sequential = SearchHarness.compare(scenario(true, new AtomicInteger(), new AtomicInteger()),
        SETTINGS);

    // every combination here has a clear effect (from x0.87 to x1.67) and every trial is measured
    assertThat(fixed.oracleCost().trials()).isEqualTo(7);
    assertThat(fixed.oracleCost().clearTrials()).isEqualTo(7);
    assertThat(fixed.oracleCost().pairsPerTrial()).isEqualTo(8);
    assertThat(fixed.oracleCost().blocksPerTrial()).isEqualTo(18);
    assertThat(fixed.agentCost().clearPairsPerTrial()).isEqualTo(8);
    assertThat(sequential.oracleCost().clearPairsPerTrial()).isLessThanOrEqualTo(8.0 / 2);
    assertThat(sequential.agentCost().clearPairsPerTrial()).isLessThanOrEqualTo(8.0 / 2);
  }

  @Test
  void withAGroundTruthNothingIsReMeasured() {
    Comparison c = SearchHarness.compare(scenario(true, new AtomicInteger(), new AtomicInteger()), SETTINGS);

    assertThat(c.agent().remeasured()).isNaN();
    assertThat(c.agentRuns()).allSatisfy(r -> assertThat(r.remeasured()).isNaN());
    assertThat(c.agentRuns()).allSatisfy(r -> assertThat(r.speedup()).isEqualTo(MODEL.speedup(Set.of("fast"))));
  }

  @Test
  void withoutAGroundTruthEveryMethodsFinalSetupIsReMeasuredAgainstTheOriginal() {
    Comparison c = SearchHarness.compare(scenario(false, new AtomicInteger(), new AtomicInteger()), SETTINGS);
    double truth = MODEL.speedup(Set.of("fast"));

    List<SearchHarness.Run> all = new ArrayList<>(c.agentRuns());
    all.addAll(c.randomRuns());
    all.add(c.oracleRun());
    assertThat(all).allSatisfy(r -> {
      assertThat(r.levers()).containsExactly("fast");
      assertThat(r.remeasured()).isCloseTo(truth, org.assertj.core.data.Percentage.withPercentage(5));
    });
    // the measured gains are the methods' own, not the truth
    assertThat(c.agentRuns()).extracting(SearchHarness.Run::speedup).doesNotContain(truth);
  }

  @Test
  void everyJobTheComparisonMadeIsClosed() {
    AtomicInteger made = new AtomicInteger();
    AtomicInteger closed = new AtomicInteger();
    SearchHarness.compare(scenario(false, made, closed), SETTINGS);

    assertThat(made.get()).isEqualTo(1 + 2 * SETTINGS.repeats());
    assertThat(closed.get()).isEqualTo(made.get());
  }

  @Test
  void aTargetFromTheOracleIsSetBeforeTheOtherMethodsRun() {
    Comparison c = SearchHarness.compare(scenario(false, new AtomicInteger(), new AtomicInteger()), SETTINGS,
        RealJobHarness::targetFromOracle, line -> {});

    assertThat(c.scenario().target()).isEqualTo(RealJobHarness.targetFromOracle(c.oracle().speedup()));
    assertThat(c.oracle().trialsToTarget()).isEqualTo(7);
    assertThat(c.agent().reached()).isEqualTo(SETTINGS.repeats());
  }
}
