package io.gitm.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.bench.SearchHarness.Comparison;
import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Levers;
import io.gitm.rank.Candidate;
import io.gitm.search.Gate;
import io.gitm.workloads.hft.HftLobWorkload;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** hft-lob as the harness's real job, on a small generated input on the simulated h200. */
class ManagedScenarioTest {
  /**
   * 40 instruments, ~24,000 messages in about 35 input batches of 700: enough that a gate's blocks of 4 batches do
   * not end short where the input runs out (a short block is an outlier the gate's rank test cannot see past).
   */
  static final HftLobWorkload.Params SMALL = new HftLobWorkload.Params(11, 40, 24000, 700, 10, 128, 7, null);
  private static final LeverContext CONTEXT = new LeverContext(new HftLobWorkload(SMALL).spec(), null, List.of(),
      Map.of(), false);

  @TempDir
  static Path data;

  static ManagedScenario.Options options(List<String> levers, int maxLevers, String faults) {
    return new ManagedScenario.Options("hft-lob", "sim", Map.of("preset", "h200", "seed", "5", "faults", faults),
        SMALL, levers, maxLevers, 4, 6, data, null);
  }

  private static Candidate prior(String id, double gain) {
    return Candidate.prior(Levers.byId(id), gain, 0.02);
  }

  @Test
  void theChosenLeversAreTheBestPredictedOnesThatApplyToTheShippedSetup() {
    ManagedScenario.Prepared p = ManagedScenario.prepare(options(List.of(), 4, ""));

    List<Lever> chosen = p.scenario().levers();
    assertThat(chosen).hasSize(4);
    assertThat(p.choices()).filteredOn(ManagedScenario.Choice::chosen).extracting(ManagedScenario.Choice::id)
        .containsExactlyElementsOf(chosen.stream().map(Lever::id).toList());
    double worstChosen = p.choices().stream().filter(ManagedScenario.Choice::chosen)
        .mapToDouble(ManagedScenario.Choice::predictedGain).min().orElseThrow();
    assertThat(p.choices()).filteredOn(c -> !c.chosen() && c.why().startsWith("below"))
        .allSatisfy(c -> assertThat(c.predictedGain()).isLessThanOrEqualTo(worstChosen));
    assertThat(p.choices()).filteredOn(c -> c.id().equals("pool-allocation")).singleElement()
        .satisfies(c -> assertThat(c.basis()).isEqualTo("replay"));
    assertThat(p.notApplicable()).containsKey("async-copies");
    assertThat(p.scenario().predictions()).extracting(Candidate::id)
        .containsExactlyInAnyOrderElementsOf(chosen.stream().map(Lever::id).toList());
    assertThat(p.baseline().iterations()).isEqualTo(6);
    assertThat(p.replayModelError()).isFinite();
  }

  @Test
  void anotherSettingOfAChosenLeverIsLeftOut() {
    List<ManagedScenario.Choice> choices = new ArrayList<>();
    List<Lever> chosen = ManagedScenario.choose(List.of(prior("streams-2", 1.05), prior("streams-4", 1.04),
        prior("warmup", 1.01)), options(List.of(), 8, ""), CONTEXT, choices);

    assertThat(chosen).extracting(Lever::id).containsExactly("streams-2", "warmup");
    assertThat(choices.get(1).why()).contains("another setting of streams-2");
  }

  @Test
  void differentLeversOnTheSameKnobAreBothKept() {
    assertThat(ManagedScenario.overrides(Levers.byId("pool-allocation"), Levers.byId("preallocate"), CONTEXT))
        .isTrue();
    List<Lever> chosen = ManagedScenario.choose(List.of(prior("pool-allocation", 1.5), prior("preallocate", 1.5)),
        options(List.of(), 8, ""), CONTEXT, new ArrayList<>());

    assertThat(chosen).extracting(Lever::id).containsExactly("pool-allocation", "preallocate");
  }

  @Test
  void leversOnDifferentKnobsDoNotOverrideEachOther() {
    assertThat(ManagedScenario.overrides(Levers.byId("pinned-host-memory"), Levers.byId("pool-allocation"), CONTEXT))
        .isFalse();
  }

  @Test
  void aNamedLeverThatDoesNotApplyIsRefusedWithItsReason() {
    assertThatThrownBy(() -> ManagedScenario.prepare(options(List.of("async-copies"), 8, "")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("async-copies")
        .hasMessageContaining("pinned-host-memory");
  }

  @Test
  void eachJobOpensTheSimulatedDeviceWithTheNextSeed() {
    ManagedScenario.Options o = options(List.of(), 8, "allocator-churn");

    assertThat(ManagedScenario.request(o, 0).options()).containsEntry("seed", "5")
        .containsEntry("faults", "allocator-churn");
    assertThat(ManagedScenario.request(o, 3).options()).containsEntry("seed", "8");
  }

  @Test
  void simulatorOptionsOnAnotherDeviceAreRefused() {
    assertThatThrownBy(() -> new ManagedScenario.Options("hft-lob", "nvidia", Map.of("faults", "thermal"), SMALL,
        List.of(), 8, 8, 40, data, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("simulated device only");
  }

  @Test
  void blocksMustFitEveryBatchCoalescingFactor() {
    assertThatThrownBy(() -> new ManagedScenario.Options("hft-lob", "sim", Map.of(), SMALL, List.of(), 8, 6, 40,
        data, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of 4");
  }

  @Test
  void onTheLiveJobEveryMethodEndsOnAMeasuredSetupAndIsReMeasured() {
    ManagedScenario.Prepared p = ManagedScenario.prepare(options(List.of("pool-allocation", "pinned-host-memory"), 8,
        ""));
    Gate.Options gate = Gate.Options.defaults().withPairs(6);
    Comparison c = SearchHarness.compare(p.scenario(), new SearchHarness.Settings(gate, 1, 3, 1),
        RealJobHarness::targetFromOracle, line -> {});

    assertThat(c.oracleTrials()).hasSize(3).allSatisfy(m -> assertThat(m.outcome().failure()).isFalse());
    assertThat(c.oracleRun().levers()).contains("pool-allocation");
    assertThat(c.agentRuns()).singleElement().satisfies(r -> {
      assertThat(r.levers()).contains("pool-allocation");
      assertThat(r.remeasured()).isGreaterThan(1.0);
    });
    assertThat(c.randomRuns()).singleElement().satisfies(r -> assertThat(r.remeasured()).isFinite());
    assertThat(c.oracleRun().remeasured()).isGreaterThan(1.0);
  }
}
