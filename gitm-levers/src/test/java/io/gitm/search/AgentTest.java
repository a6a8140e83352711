package io.gitm.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.LeverSpec;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.search.Agent.Result;
import io.gitm.search.Agent.StopReason;
import io.gitm.search.TrialRecord.Kind;
import io.gitm.search.Verdict.Outcome;
import io.gitm.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agent against seeded synthetic jobs, one test per failure it must survive. Where chance is involved the test
 * runs many seeds and states its pass bar.
 */
class AgentTest {
  private static final Setup SHIPPED = Setup.shipped();
  private static final LeverContext CONTEXT = new LeverContext(null, null, List.of(), Map.of(), false);
  private static final Agent.Options OPTIONS = Agent.Options.defaults()
      .withGate(Gate.Options.defaults().withBlockTimeout(Duration.ofSeconds(60)));

  private static Result optimize(SyntheticJob job, List<Candidate> candidates) {
    return optimize(job, candidates, OPTIONS);
  }

  private static Result optimize(SyntheticJob job, List<Candidate> candidates, Agent.Options options) {
    return new Agent(new FakeTicker(), options).optimize(job, SHIPPED, candidates, CONTEXT, Long.MAX_VALUE,
        Agent.Listener.none(), List.of());
  }

  private static Candidate replay(SyntheticLever lever, double predicted) {
    return Candidate.replay(lever, predicted, 0.04);
  }

  private static List<TrialRecord> trialsOf(Result r, String lever) {
    return r.trials().stream().filter(t -> t.levers().contains(lever)).toList();
  }

  @Test
  void aLeverThatIsSlowerIsRolledBack() {
    SyntheticJob job = new SyntheticJob(1).effect("fast", 1.15).effect("slow", 0.85);
    Result r = optimize(job, List.of(replay(SyntheticLever.a("slow"), 1.2), replay(SyntheticLever.a("fast"), 1.1)));

    assertThat(r.keptLevers()).containsExactly("fast");
    assertThat(trialsOf(r, "slow")).first().extracting(t -> t.verdict().outcome()).isEqualTo(Outcome.SLOWER);
    assertThat(job.trueGain(r.anchor())).isEqualTo(1.15);
  }

  @Test
  void aFasterLeverThatCorruptsOutputIsRolledBack() {
    SyntheticJob job = new SyntheticJob(2).effect("corrupt", 1.3).corrupts("corrupt").effect("good", 1.1);
    Result r = optimize(job, List.of(replay(SyntheticLever.a("corrupt"), 1.3), replay(SyntheticLever.a("good"), 1.1)));

    assertThat(r.keptLevers()).containsExactly("good");
    assertThat(trialsOf(r, "corrupt")).singleElement().extracting(t -> t.verdict().outcome())
        .isEqualTo(Outcome.OUTPUT_CHANGED);
    assertThat(SyntheticJob.levers(r.anchor())).doesNotContain("corrupt");
  }

  /** {@code lever} declaring that it makes the change to arithmetic {@code numerics}, as the TF32 levers do. */
  private static Lever withNumerics(SyntheticLever lever, String numerics) {
    return new Lever() {
      @Override
      public LeverSpec spec() {
        return lever.spec();
      }

      @Override
      public Applicability check(LeverContext c) {
        return lever.check(c);
      }

      @Override
      public Setup apply(Setup s, LeverContext c) {
        return lever.apply(s, c);
      }

      @Override
      public Set<String> numerics() {
        return Set.of(numerics);
      }
    };
  }

  @Test
  void aLeverOfTheArithmeticOfOneWhoseOutputChangedIsNotTried() {
    SyntheticJob job = new SyntheticJob(3).effect("tf32-env", 2.8).shifts("tf32-env", 0.03).effect("tf32-torch", 2.9)
        .shifts("tf32-torch", 0.03).effect("other", 1.2).shifts("other", 0.03).effect("good", 1.1);
    Result r = optimize(job, List.of(
        Candidate.replay(withNumerics(SyntheticLever.b("tf32-env"), Lever.TF32_MATH), 2.8, 0.04),
        Candidate.replay(withNumerics(SyntheticLever.b("tf32-torch"), Lever.TF32_MATH), 2.7, 0.04),
        replay(SyntheticLever.b("other"), 1.2), replay(SyntheticLever.a("good"), 1.1)));

    assertThat(trialsOf(r, "tf32-env")).singleElement().extracting(t -> t.verdict().outcome())
        .isEqualTo(Outcome.OUTPUT_CHANGED);
    assertThat(trialsOf(r, "tf32-torch")).as("the same arithmetic by another route").isEmpty();
    assertThat(r.notTried()).containsKey("tf32-torch");
    assertThat(r.notTried().get("tf32-torch")).contains("tf32-env").contains(Lever.TF32_MATH);
    assertThat(trialsOf(r, "other")).as("a lever of other arithmetic is still tried").singleElement()
        .extracting(t -> t.verdict().outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
    assertThat(r.keptLevers()).containsExactly("good");
  }

  @Test
  void aLeverOfTheArithmeticOfOneKeptIsNotTriedOnTopOfIt() {
    SyntheticJob job = new SyntheticJob(5).effect("tf32-env", 2.7).effect("tf32-torch", 1.0).effect("good", 1.1);
    Result r = optimize(job, List.of(
        Candidate.replay(withNumerics(SyntheticLever.b("tf32-env"), Lever.TF32_MATH), 2.8, 0.04),
        Candidate.replay(withNumerics(SyntheticLever.b("tf32-torch"), Lever.TF32_MATH), 2.7, 0.04),
        replay(SyntheticLever.a("good"), 1.1)));

    assertThat(r.keptLevers()).containsExactlyInAnyOrder("tf32-env", "good");
    assertThat(trialsOf(r, "tf32-torch")).as("TF32 is on already").isEmpty();
    assertThat(r.notTried().get("tf32-torch")).contains("already tf32-env's, kept");
  }

  @Test
  void aLeverOfTheArithmeticOfOneThatWasOnlySlowerIsStillTried() {
    SyntheticJob job = new SyntheticJob(4).effect("tf32-env", 0.8).effect("tf32-torch", 1.3);
    Result r = optimize(job, List.of(
        Candidate.replay(withNumerics(SyntheticLever.b("tf32-env"), Lever.TF32_MATH), 1.4, 0.04),
        Candidate.replay(withNumerics(SyntheticLever.b("tf32-torch"), Lever.TF32_MATH), 1.3, 0.04)));

    assertThat(trialsOf(r, "tf32-env")).first().extracting(t -> t.verdict().outcome()).isEqualTo(Outcome.SLOWER);
    assertThat(r.keptLevers()).containsExactly("tf32-torch");
  }

  @Test
  void aJobWhoseOwnOutputIsNotReproducibleKeepsAClassALeverWithinItsToleranceOnly() {
    SyntheticJob job = new SyntheticJob(2).effect("near", 1.2).shifts("near", 1e-4).effect("far", 1.3)
        .shifts("far", 1e-1).unreproducible();
    Result r = optimize(job, List.of(replay(SyntheticLever.a("far"), 1.3), replay(SyntheticLever.a("near"), 1.2)),
        OPTIONS.withOutputTolerance(1e-3));

    assertThat(r.keptLevers()).containsExactly("near");
    assertThat(trialsOf(r, "far")).first().extracting(t -> t.verdict().outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
    assertThat(trialsOf(r, "near")).first().extracting(t -> t.verdict().detail()).asString()
        .contains("not bit for bit");
  }

  @Test
  void aLeverThatHelpsOnlyInCombinationIsFound() {
    // x and y do nothing alone and 15% together; z does nothing. Pass bar: found in at least 45 of 50 seeds.
    int found = 0;
    for (long seed = 0; seed < 50; seed++) {
      SyntheticJob job = new SyntheticJob(seed).interaction(Set.of("x", "y"), 1.15);
      Result r = optimize(job, List.of(replay(SyntheticLever.a("x"), 1.08), replay(SyntheticLever.a("y"), 1.07),
          replay(SyntheticLever.a("z"), 1.05)));
      if (r.keptLevers().containsAll(List.of("x", "y"))) {
        found++;
        // kept through the pair, or (when another lever was kept alone by chance and paired with one of these)
        // through what is left of a pair once its free rider is dropped
        assertThat(r.trials()).anyMatch(t -> (t.kind() == Kind.PAIR || t.kind() == Kind.SUBSET) && t.kept());
        assertThat(job.trueGain(r.anchor())).isEqualTo(1.15);
      }
    }
    assertThat(found).isGreaterThanOrEqualTo(45);
  }

  @Test
  void aLeverThatNeedsAnotherFirstIsTriedOnceItsEnablerIsKeptOrInAPairWithIt() {
    // "graph" applies only after "async"; "async" alone gains nothing, "graph" on top of it 25%. Found in at least
    // 9 of 10 seeds, always through a trial that has both.
    int found = 0;
    for (long seed = 0; seed < 10; seed++) {
      SyntheticJob job = new SyntheticJob(seed).interaction(Set.of("async", "graph"), 1.25).effect("other", 1.1);
      Result r = optimize(job, List.of(replay(SyntheticLever.a("async"), 1.02),
          replay(SyntheticLever.needing("graph", "async"), 1.3), replay(SyntheticLever.a("other"), 1.1)));
      if (r.keptLevers().containsAll(List.of("async", "graph"))) {
        found++;
      }
      assertThat(r.trials()).noneMatch(t -> t.levers().equals(List.of("graph")) && t.anchorLevers().stream()
          .noneMatch("async"::equals));
    }
    assertThat(found).isGreaterThanOrEqualTo(9);
  }

  @Test
  void aLeverThatHangsIsCutByTheWatchdogAndNeverRetried() {
    // "hang" applies only after "async" and hangs; it is first tried in a bundle with "async". The pair of "async"
    // and "x" is kept later, after which "hang" would apply to the anchor: it must not be tried again.
    SyntheticJob job = new SyntheticJob(3).hangs("hang").interaction(Set.of("async", "x"), 1.15);
    Agent.Options options = OPTIONS.withGate(OPTIONS.gate().withBlockTimeout(Duration.ofSeconds(2)))
        .withTarget(0.5);
    Result r = optimize(job, List.of(replay(SyntheticLever.a("async"), 1.1), replay(SyntheticLever.a("x"), 1.08),
        replay(SyntheticLever.needing("hang", "async"), 1.05)), options);

    assertThat(trialsOf(r, "hang")).singleElement().satisfies(t -> {
      assertThat(t.kind()).isEqualTo(Kind.BUNDLE);
      assertThat(t.verdict().outcome()).isEqualTo(Outcome.HANG);
    });
    assertThat(job.opensWith(Set.of("hang"))).isEqualTo(1);
    assertThat(r.keptLevers()).containsExactlyInAnyOrder("async", "x");
    assertThat(job.openNow()).isZero();
  }

  @Test
  void aLeverThatCrashesIsNeverRetried() {
    // "graph" applies only after "async" and crashes. Its first trial is a bundle with "async", which ran alone
    // before and is not banned: the pair of "async" and "x" is kept, after which "graph" applies to the anchor.
    // Pass bar: in all 10 seeds "graph" runs in exactly one trial.
    for (long seed = 0; seed < 10; seed++) {
      SyntheticJob job = new SyntheticJob(seed).crashes("graph").interaction(Set.of("async", "x"), 1.15);
      Result r = optimize(job, List.of(replay(SyntheticLever.a("async"), 1.1), replay(SyntheticLever.a("x"), 1.08),
          replay(SyntheticLever.needing("graph", "async"), 1.05)), OPTIONS.withTarget(0.5));

      assertThat(trialsOf(r, "graph")).as("seed %d", seed).singleElement().satisfies(t -> {
        assertThat(t.kind()).isEqualTo(Kind.BUNDLE);
        assertThat(t.verdict().outcome()).isEqualTo(Outcome.CRASH);
      });
      assertThat(job.opensWith(Set.of("graph"))).isEqualTo(1);
      assertThat(r.keptLevers()).as("seed %d", seed).containsExactlyInAnyOrder("async", "x");
    }
  }

  @Test
  void anEnablerThatCrashesInItsFirstBundleIsNotTriedAlone() {
    // "graph" needs "async" and is predicted far above it, so the bundle of the two is the first trial; "async" is
    // what crashes. It never ran alone, so it is banned: its own trial alone would crash the job again.
    SyntheticJob job = new SyntheticJob(26).crashes("async").effect("good", 1.1);
    Result r = optimize(job, List.of(replay(SyntheticLever.a("async"), 1.03),
        replay(SyntheticLever.needing("graph", "async"), 1.4), replay(SyntheticLever.a("good"), 1.1)),
        OPTIONS.withTarget(0.5));

    assertThat(trialsOf(r, "async")).singleElement().satisfies(t -> {
      assertThat(t.kind()).isEqualTo(Kind.BUNDLE);
      assertThat(t.verdict().outcome()).isEqualTo(Outcome.CRASH);
    });
    assertThat(job.opensWith(Set.of("async"))).isEqualTo(1);
    assertThat(r.keptLevers()).containsExactly("good");
    assertThat(r.detail()).contains("not tried again after a failed trial: async, graph");
  }

  @Test
  void aCombinationThatCrashedIsNeverRunAgainThoughItsLeversAre() {
    // p and q run alone but crash together; p and r help only together. The pair p+q crashes first; p+r is kept;
    // q+s on top of it would hold p and q again. Pass bar: in all 10 seeds p and q are never together again.
    for (long seed = 0; seed < 10; seed++) {
      SyntheticJob job = new SyntheticJob(seed).crashesTogether(Set.of("p", "q")).interaction(Set.of("p", "r"), 1.15);
      Result r = optimize(job, List.of(replay(SyntheticLever.a("p"), 1.09), replay(SyntheticLever.a("q"), 1.08),
          replay(SyntheticLever.a("r"), 1.07), replay(SyntheticLever.a("s"), 1.06)), OPTIONS.withTarget(0.5));

      assertThat(r.trials()).as("seed %d", seed).filteredOn(t -> t.verdict().outcome() == Outcome.CRASH)
          .singleElement().satisfies(t -> assertThat(t.levers()).containsExactly("p", "q"));
      assertThat(job.opensWith(Set.of("p", "q"))).as("seed %d", seed).isEqualTo(1);
      assertThat(r.keptLevers()).as("seed %d: p ran alone before the crash, so it is not banned", seed)
          .contains("p", "r");
    }
  }

  @Test
  void aPairWithAFreeRiderKeepsOnlyTheLeverThatHelps() {
    // "help" does nothing alone and 20% on top of "base"; "rider" costs 0.5% (as warmup and l2-persist-window did on
    // the H200). Both are inconclusive alone, so after "base" is kept they are paired, and the pair passes on the
    // strength of "help". Pass bar: "rider" kept in none of 20 seeds, "help" in at least 19.
    int helped = 0;
    for (long seed = 0; seed < 20; seed++) {
      SyntheticJob job = new SyntheticJob(seed).effect("base", 1.2).interaction(Set.of("base", "help"), 1.2)
          .effect("rider", 0.995);
      Result r = optimize(job, List.of(replay(SyntheticLever.a("help"), 1.15), replay(SyntheticLever.a("rider"), 1.12),
          replay(SyntheticLever.a("base"), 1.1)), OPTIONS.withTarget(0.5));

      assertThat(r.keptLevers()).as("seed %d", seed).doesNotContain("rider");
      assertThat(SyntheticJob.levers(r.anchor())).doesNotContain("rider");
      if (r.keptLevers().contains("help")) {
        helped++;
        assertThat(r.trials()).as("seed %d: the pair was tried and passed", seed)
            .anyMatch(t -> t.levers().equals(List.of("help", "rider")) && t.verdict().kept() && !t.kept());
      }
    }
    assertThat(helped).isGreaterThanOrEqualTo(19);
  }

  @Test
  void aLeverThatNeedsANeutralEnablerIsStillFound() {
    // "graph" applies only after "async", which alone does nothing and is predicted nothing (so its trial alone is
    // neither promising nor inconclusive and no pair holds it); "graph" on top of it gains 25%. Six neutral levers
    // predicted at 10% would fill the pairs. Pass bar: found in at least 9 of 10 seeds, in a bundle tried first.
    int found = 0;
    for (long seed = 0; seed < 10; seed++) {
      SyntheticJob job = new SyntheticJob(seed).effect("async", 0.995).interaction(Set.of("async", "graph"), 1.25);
      List<Candidate> candidates = new ArrayList<>(List.of(Candidate.prior(SyntheticLever.a("async"), 1.0, 0.01),
          replay(SyntheticLever.needing("graph", "async"), 1.3)));
      for (int i = 0; i < 6; i++) {
        candidates.add(replay(SyntheticLever.a("n" + i), 1.1));
      }
      Result r = optimize(job, candidates, OPTIONS.withTarget(0.5).withMaxPairs(3));

      // the bundle's member checks are journaled before the bundle itself, so the first trial holds "graph" either way
      assertThat(r.trials().getFirst().levers()).as("seed %d", seed).contains("graph");
      assertThat(r.trials()).anyMatch(t -> t.kind() == Kind.BUNDLE && t.levers().equals(List.of("async", "graph")));
      if (r.keptLevers().containsAll(List.of("async", "graph"))) {
        found++;
      }
    }
    assertThat(found).isGreaterThanOrEqualTo(9);
  }

  @Test
  void theStopReasonNamesWhatWasLeftUntriedAndWhy() {
    SyntheticJob job = new SyntheticJob(24);
    Result r = optimize(job, List.of(replay(SyntheticLever.notApplying("no"), 1.5), replay(SyntheticLever.a("i1"), 1.1),
        replay(SyntheticLever.a("i2"), 1.1)), OPTIONS.withTarget(0.5).withMaxPairs(0));

    assertThat(r.stopReason()).isEqualTo(StopReason.EXHAUSTED);
    assertThat(r.detail()).doesNotContain("every candidate tried")
        .contains("1 candidate never tried: no (it does not apply: synthetic lever no never applies)")
        .contains("1 pair of inconclusive levers left untried at the cap of 0 pairs")
        .contains("target 50% not reached");

    Result all = optimize(new SyntheticJob(25), List.of(replay(SyntheticLever.a("i1"), 1.1)), OPTIONS.withTarget(0.5));
    assertThat(all.stopReason()).isEqualTo(StopReason.EXHAUSTED);
    assertThat(all.detail()).startsWith("every candidate tried; target 50% not reached");
  }

  @Test
  void onANoisyMachineNothingIsKept() {
    // 5% noise per block, four levers that do nothing but are predicted to help. Pass bar: something kept in at most
    // 5% of 100 seeded searches.
    int runsThatKept = 0;
    for (long seed = 0; seed < 100; seed++) {
      SyntheticJob job = new SyntheticJob(seed).noise(0.05);
      List<Candidate> candidates = new ArrayList<>();
      for (String id : List.of("a", "b", "c", "d")) {
        candidates.add(replay(SyntheticLever.a(id), 1.1));
      }
      Result r = optimize(job, candidates, OPTIONS.withGate(OPTIONS.gate().withSeed(seed)));
      if (!r.keptLevers().isEmpty()) {
        runsThatKept++;
      }
      assertThat(r.anchor().equals(SHIPPED) || r.trials().stream().anyMatch(t -> t.kept()
          && t.candidate().equals(r.anchor()))).isTrue();
    }
    assertThat(runsThatKept).isLessThanOrEqualTo(5);
  }

  @Test
  void aClassBLeverWithinToleranceIsKept() {
    SyntheticJob job = new SyntheticJob(5).effect("tf32", 1.2).shifts("tf32", 1e-4);
    Result r = optimize(job, List.of(replay(SyntheticLever.b("tf32"), 1.2)), OPTIONS.withOutputTolerance(1e-3));

    assertThat(r.keptLevers()).containsExactly("tf32");
  }

  @Test
  void aClassBLeverOutsideToleranceIsRolledBack() {
    SyntheticJob job = new SyntheticJob(6).effect("fp16", 1.3).shifts("fp16", 1e-2);
    Result r = optimize(job, List.of(replay(SyntheticLever.b("fp16"), 1.3)), OPTIONS.withOutputTolerance(1e-3));

    assertThat(r.keptLevers()).isEmpty();
    assertThat(r.trials()).singleElement().extracting(t -> t.verdict().outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
  }

  @Test
  void classBLeversShareOneToleranceAgainstTheOriginalOutput() {
    // Each moves the output by 0.06%; the tolerance is 0.1%: one fits, two together do not.
    SyntheticJob job = new SyntheticJob(7).effect("b1", 1.2).shifts("b1", 6e-4).effect("b2", 1.1).shifts("b2", 6e-4);
    Result r = optimize(job, List.of(replay(SyntheticLever.b("b1"), 1.2), replay(SyntheticLever.b("b2"), 1.1)),
        OPTIONS.withOutputTolerance(1e-3));

    assertThat(r.keptLevers()).containsExactly("b1");
    assertThat(trialsOf(r, "b2")).first().extracting(t -> t.verdict().outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
  }

  @Test
  void keptLeversAccumulateOnTheAnchor() {
    SyntheticJob job = new SyntheticJob(8).effect("a", 1.12).effect("b", 1.10).effect("c", 1.08);
    Result r = optimize(job, List.of(replay(SyntheticLever.a("c"), 1.08), replay(SyntheticLever.a("a"), 1.12),
        replay(SyntheticLever.a("b"), 1.10)), OPTIONS.withTarget(0.5));

    assertThat(r.keptLevers()).as("in ranking order").containsExactly("a", "b", "c");
    assertThat(SyntheticJob.levers(r.anchor())).containsExactlyInAnyOrder("a", "b", "c");
    assertThat(r.trials().get(1).anchorLevers()).containsExactly("a");
    assertThat(r.chainedGain()).isCloseTo(1.12 * 1.10 * 1.08, within(0.05));
    assertThat(r.confirmation()).get().extracting(TrialRecord::kept).isEqualTo(true);
    assertThat(r.totalGain()).isCloseTo(1.12 * 1.10 * 1.08, within(0.05));
    assertThat(r.stopReason()).isEqualTo(StopReason.EXHAUSTED);
  }

  @Test
  void aBundleWhoseDeferredLeverIsDroppedKeepsItsEnablerAndTheOtherLeversAreStillTried() {
    // as on the H200: "threshold" needs "pool" and is ranked first; the bundle passes on "pool" alone, "threshold" is
    // dropped; "pool" must not be tried again (it is kept), and "pre" and "pin" must still be tried
    SyntheticJob job = new SyntheticJob(5).effect("pool", 1.12).effect("pre", 1.10).effect("pin", 1.08);
    Result r = optimize(job, List.of(replay(SyntheticLever.needing("threshold", "pool"), 1.5),
        replay(SyntheticLever.a("pool"), 1.12), replay(SyntheticLever.a("pre"), 1.10),
        replay(SyntheticLever.a("pin"), 1.08)), OPTIONS.withTarget(0.5));

    assertThat(r.trials()).noneMatch(t -> t.verdict().outcome() == Verdict.Outcome.SETUP_REFUSED);
    assertThat(r.trials().stream().filter(t -> t.kind() == Kind.SINGLE).map(TrialRecord::levers))
        .doesNotContain(List.of("pool"));
    assertThat(r.keptLevers()).contains("pool", "pre", "pin");
  }

  @Test
  void aLeverThatStoppedApplyingWhenAnotherWasKeptIsNotTriedNorBanned() {
    SyntheticJob job = new SyntheticJob(6).effect("pre", 1.2).effect("threshold", 1.0);
    Result r = optimize(job, List.of(replay(SyntheticLever.a("pre"), 1.2),
        replay(SyntheticLever.excludedBy("threshold", "pre"), 1.05)), OPTIONS.withTarget(0.5));

    assertThat(r.keptLevers()).containsExactly("pre");
    assertThat(r.trials()).noneMatch(t -> t.levers().contains("threshold"));
    assertThat(r.notTried()).containsKey("threshold");
    assertThat(r.notTried().get("threshold")).contains("does not apply on top of pre");
  }

  @Test
  void aLeverTriedOnTopOfKeptLeversCarriesThePredictionForThatContext() {
    SyntheticJob job = new SyntheticJob(8).effect("a", 1.12).effect("b", 1.10);
    List<List<String>> asked = new java.util.ArrayList<>();
    Agent.Predictor onTop = (lever, kept) -> {
      asked.add(kept.stream().map(io.gitm.levers.Lever::id).toList());
      return java.util.OptionalDouble.of(1.30);
    };
    Result r = new Agent(new FakeTicker(), OPTIONS.withTarget(0.5), onTop).optimize(job, SHIPPED,
        List.of(replay(SyntheticLever.a("a"), 1.12), replay(SyntheticLever.a("b"), 1.10)), CONTEXT, Long.MAX_VALUE,
        Agent.Listener.none(), List.of());

    assertThat(r.trials().get(0).predictedGain()).as("nothing kept yet: the profiled prediction").isEqualTo(1.12);
    assertThat(r.trials().get(1).levers()).containsExactly("b");
    assertThat(r.trials().get(1).predictedGain()).as("on top of a").isEqualTo(1.30);
    assertThat(asked).containsExactly(List.of("a"));
  }

  @Test
  void theTargetEndsTheSearchWhenNothingPromisingIsLeft() {
    SyntheticJob job = new SyntheticJob(9).effect("big", 1.25);
    Result r = optimize(job, List.of(replay(SyntheticLever.a("big"), 1.25),
        Candidate.prior(SyntheticLever.a("meh1"), 1.005, 0.002), Candidate.prior(SyntheticLever.a("meh2"), 1.0, 0.002)),
        OPTIONS.withTarget(0.15));

    assertThat(r.stopReason()).isEqualTo(StopReason.TARGET_REACHED);
    assertThat(r.keptLevers()).containsExactly("big");
    assertThat(r.notTried()).containsOnlyKeys("meh1", "meh2");
    assertThat(job.opens(Set.of("big", "meh1"))).isZero();
  }

  @Test
  void belowTheTargetEvenUnpromisingLeversAreTried() {
    SyntheticJob job = new SyntheticJob(10).effect("small", 1.05).effect("meh", 1.1);
    Result r = optimize(job, List.of(replay(SyntheticLever.a("small"), 1.05),
        Candidate.prior(SyntheticLever.a("meh"), 1.0, 0.002)), OPTIONS.withTarget(0.15));

    assertThat(r.keptLevers()).containsExactly("small", "meh");
  }

  @Test
  void resumeDoesNotRepeatCompletedTrials() {
    List<Candidate> candidates = List.of(replay(SyntheticLever.a("a"), 1.2), replay(SyntheticLever.a("slow"), 1.1),
        replay(SyntheticLever.a("b"), 1.08), replay(SyntheticLever.a("crash"), 1.05));
    List<TrialRecord> journal = new ArrayList<>();
    Result full = new Agent(new FakeTicker(), OPTIONS).optimize(scenario(11), SHIPPED, candidates, CONTEXT,
        Long.MAX_VALUE, journal::add, List.of());
    assertThat(journal).isEqualTo(full.trials());

    // The first search died after three trials; the second is given them.
    SyntheticJob job = scenario(12);
    List<TrialRecord> heard = new ArrayList<>();
    Result resumed = new Agent(new FakeTicker(), OPTIONS).optimize(job, SHIPPED, candidates, CONTEXT,
        Long.MAX_VALUE, heard::add, journal.subList(0, 3));

    assertThat(resumed.reusedTrials()).isEqualTo(3);
    assertThat(resumed.trials().subList(0, 3)).isEqualTo(journal.subList(0, 3));
    assertThat(journal.get(1).levers()).containsExactly("slow");
    assertThat(job.opens(Set.of("a", "slow"))).as("the trial of slow on top of a, run again").isZero();
    assertThat(heard).hasSize(resumed.trials().size() - 3);
    assertThat(job.totalOpens()).as("only the trials after the third opened the job").isEqualTo(2 * heard.size());
    assertThat(resumed.anchor()).isEqualTo(full.anchor());
    assertThat(resumed.keptLevers()).isEqualTo(full.keptLevers());
  }

  @Test
  void aTrialJournaledBeforePlansWereRecordedReadsBackWithoutAPlan() {
    Result full = new Agent(new FakeTicker(), OPTIONS).optimize(scenario(13), SHIPPED,
        List.of(replay(SyntheticLever.a("a"), 1.2)), CONTEXT, Long.MAX_VALUE, Agent.Listener.none(), List.of());
    JsonMapper json = JsonMapper.builder().build();
    TrialRecord t = full.trials().getFirst();
    ObjectNode tree = json.valueToTree(t);
    ((ObjectNode) tree.get("verdict")).remove("plan");
    TrialRecord old = json.treeToValue(tree, TrialRecord.class);

    assertThat(t.verdict().plan()).isNotNull();
    assertThat(old.verdict().plan()).isNull();
    assertThat(old.verdict().outcome()).isEqualTo(t.verdict().outcome());
    assertThat(old.verdict().anchorSamples()).isEqualTo(t.verdict().anchorSamples());
  }

  @Test
  void trialsReadBackFromJsonResumeTheSearch() {
    List<Candidate> candidates = List.of(replay(SyntheticLever.a("a"), 1.2), replay(SyntheticLever.a("slow"), 1.1),
        replay(SyntheticLever.b("b"), 1.08), replay(SyntheticLever.reopening("crash"), 1.05));
    Agent.Options options = OPTIONS.withOutputTolerance(1e-3);
    Result full = new Agent(new FakeTicker(), options).optimize(scenario(13), SHIPPED, candidates, CONTEXT,
        Long.MAX_VALUE, Agent.Listener.none(), List.of());
    JsonMapper json = JsonMapper.builder().build();
    List<TrialRecord> readBack = full.trials().stream()
        .map(t -> json.readValue(json.writeValueAsString(t), TrialRecord.class)).toList();
    assertThat(readBack).isEqualTo(full.trials());

    SyntheticJob job = scenario(14);
    Result resumed = new Agent(new FakeTicker(), options).optimize(job, SHIPPED, candidates, CONTEXT, Long.MAX_VALUE,
        Agent.Listener.none(), readBack);
    assertThat(resumed.reusedTrials()).isEqualTo(full.trials().size());
    assertThat(job.totalOpens()).isZero();
    assertThat(resumed.anchor()).isEqualTo(full.anchor());
  }

  private static SyntheticJob scenario(long seed) {
    return new SyntheticJob(seed).noise(0.005).effect("a", 1.2).effect("slow", 0.8).effect("b", 1.08)
        .crashes("crash");
  }

  @Test
  void theDeadlineIsRespected() {
    // Each block takes one second of the fake clock, so a trial of the fixed design takes 18 s, its smallest (6
    // pairs) 14 s; the search has 100 s.
    FakeTicker ticker = new FakeTicker();
    SyntheticJob job = new SyntheticJob(13).ticking(ticker, 1, 0).effect("l0", 1.1);
    List<Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      candidates.add(replay(SyntheticLever.a("l" + i), 1.2 - i * 0.01));
    }
    long deadline = 100_000_000_000L;
    Result r = new Agent(ticker, OPTIONS.withGate(OPTIONS.gate().fixed(8))).optimize(job, SHIPPED, candidates,
        CONTEXT, deadline, Agent.Listener.none(), List.of());

    assertThat(ticker.nanos()).isLessThanOrEqualTo(deadline);
    assertThat(r.stopReason()).isEqualTo(StopReason.DEADLINE);
    assertThat(r.trials()).hasSize(5);
    assertThat(r.trials()).noneMatch(t -> t.verdict().outcome() == Outcome.OUT_OF_BUDGET);
  }

  @Test
  void noTrialStartsWhenEvenTheSmallestPlanCannotFinish() {
    // the fixed design's 18 blocks (8 pairs and a warm-up block per arm) are expected to take 27 s: 1.5 s a block;
    // the smallest plan, 2 pairs, runs 6 blocks, 9 s, and 5 s are left
    FakeTicker ticker = new FakeTicker();
    SyntheticJob job = new SyntheticJob(14).ticking(ticker, 1, 0).effect("a", 1.2);
    Result r = new Agent(ticker, OPTIONS.withExpectedTrial(Duration.ofSeconds(27))).optimize(job, SHIPPED,
        List.of(replay(SyntheticLever.a("a"), 1.2)), CONTEXT, 5_000_000_000L, Agent.Listener.none(), List.of());

    assertThat(r.trials()).isEmpty();
    assertThat(r.stopReason()).isEqualTo(StopReason.DEADLINE);
    assertThat(r.detail()).contains("the smallest gate (2 pairs) at this job's speed is expected to take about 9 s"
        + " and 5 s were left").contains("larger --budget");
    assertThat(job.totalOpens()).isZero();
  }

  @Test
  void aTrialWhoseFullPlanCannotFinishIsPlannedSmallerAndSaysItHasLessPower() {
    // 1.5 s a block expected, 20 s left: 2 (p + 1) blocks fit for p = 5 pairs, not the full 10; the lever does
    // nothing
    FakeTicker ticker = new FakeTicker();
    SyntheticJob job = new SyntheticJob(14).ticking(ticker, 1, 0).noise(0.03);
    Result r = new Agent(ticker, OPTIONS.withExpectedTrial(Duration.ofSeconds(27)).withConfirm(false)).optimize(job,
        SHIPPED, List.of(replay(SyntheticLever.a("a"), 1.2)), CONTEXT, 20_000_000_000L, Agent.Listener.none(),
        List.of());

    assertThat(r.trials()).hasSize(1);
    Verdict v = r.trials().getFirst().verdict();
    assertThat(v.plan()).isEqualTo(new Verdict.Plan(5, 10, v.plan().looks()));
    assertThat(v.plan().reduced()).isTrue();
    assertThat(v.anchorSamples().length).isLessThanOrEqualTo(5);
    assertThat(v.detail()).contains("planned 5 of 10 pairs for the time left, so less power");
    assertThat(v.outcome()).isNotEqualTo(Outcome.OUT_OF_BUDGET);
    assertThat(ticker.nanos()).isLessThanOrEqualTo(20_000_000_000L);
  }

  @Test
  void theResultIsNeverWorseThanTheOriginal() {
    // Random scenarios of 8 levers: effects from 0.85 to 1.15, some corrupting, some crashing. Pass bar: in all 30,
    // the result is the original or a setup that passed a gate, holds no corrupting or crashing lever, and is not
    // truly worse than the original by more than the noise (1%).
    for (long seed = 0; seed < 30; seed++) {
      Random random = new Random(seed);
      SyntheticJob job = new SyntheticJob(seed).noise(0.03);
      List<Candidate> candidates = new ArrayList<>();
      Set<String> bad = new HashSet<>();
      for (int i = 0; i < 8; i++) {
        String id = "l" + i;
        job.effect(id, 0.85 + 0.3 * random.nextDouble());
        switch (random.nextInt(8)) {
          case 0 -> {
            job.corrupts(id);
            bad.add(id);
          }
          case 1 -> {
            job.crashes(id);
            bad.add(id);
          }
          default -> { }
        }
        candidates.add(Candidate.prior(SyntheticLever.a(id), 0.95 + 0.2 * random.nextDouble(), 0.1));
      }
      Result r = optimize(job, candidates, OPTIONS.withTarget(1));

      assertThat(r.anchor().equals(SHIPPED)
          || r.trials().stream().anyMatch(t -> t.kept() && t.candidate().equals(r.anchor()))).isTrue();
      assertThat(SyntheticJob.levers(r.anchor())).noneMatch(bad::contains);
      assertThat(job.trueGain(r.anchor())).as("seed %d", seed).isGreaterThanOrEqualTo(0.99);
    }
  }

  @Test
  void classCLeversAreNotTriedWithoutAllowDeviceSettings() {
    SyntheticJob job = new SyntheticJob(15).effect("clocks", 1.2);
    Result r = optimize(job, List.of(replay(SyntheticLever.c("clocks"), 1.2)));

    assertThat(r.stopReason()).isEqualTo(StopReason.NO_CANDIDATES);
    assertThat(r.notTried()).containsKey("clocks");
    assertThat(job.totalOpens()).isZero();

    LeverContext allowed = new LeverContext(null, null, List.of(), Map.of(), true);
    Result tried = new Agent(new FakeTicker(), OPTIONS).optimize(job, SHIPPED,
        List.of(replay(SyntheticLever.c("clocks"), 1.2)), allowed, Long.MAX_VALUE, Agent.Listener.none(), List.of());
    assertThat(tried.keptLevers()).containsExactly("clocks");
    assertThat(job.mostOpenAtOnce()).as("device settings need the context opened apart").isEqualTo(1);
  }

  @Test
  void aLeverThatDoesNotApplyIsNotTried() {
    SyntheticJob job = new SyntheticJob(16).effect("a", 1.2);
    Result r = optimize(job,
        List.of(replay(SyntheticLever.notApplying("no"), 1.5), replay(SyntheticLever.a("a"), 1.2)));

    assertThat(r.notTried()).containsEntry("no", "it does not apply: synthetic lever no never applies");
    assertThat(r.trials()).noneMatch(t -> t.levers().contains("no"));
    assertThat(r.keptLevers()).containsExactly("a");
  }

  @Test
  void aLeverThatCannotBeAppliedIsRefusedAndTheSearchGoesOn() {
    SyntheticJob job = new SyntheticJob(17).effect("a", 1.2);
    Result r = optimize(job, List.of(new Candidate(new ThrowingLever(), 1.5, 0.1, "prior"),
        replay(SyntheticLever.a("a"), 1.2)));

    assertThat(trialsOf(r, "throws")).singleElement().extracting(t -> t.verdict().outcome())
        .isEqualTo(Outcome.SETUP_REFUSED);
    assertThat(trialsOf(r, "throws").getFirst().verdict().detail()).contains("no such knob");
    assertThat(r.keptLevers()).containsExactly("a");
  }

  @Test
  void aFailingAnchorStopsTheSearchWithoutBlamingTheLevers() {
    SyntheticJob job = new SyntheticJob(18).brokenAnchor();
    Result r = optimize(job, List.of(replay(SyntheticLever.a("a"), 1.2), replay(SyntheticLever.a("b"), 1.1),
        replay(SyntheticLever.a("c"), 1.1)));

    assertThat(r.stopReason()).isEqualTo(StopReason.ANCHOR_FAILED);
    assertThat(r.trials()).hasSize(2).allMatch(t -> t.verdict().failedArm() == Verdict.Arm.ANCHOR);
    assertThat(r.anchor()).isEqualTo(SHIPPED);
  }

  @Test
  void theListenerHearsOfEveryTrialAsItEnds() {
    SyntheticJob job = new SyntheticJob(19).effect("a", 1.2).effect("b", 0.9);
    List<Integer> heard = new ArrayList<>();
    Result r = new Agent(new FakeTicker(), OPTIONS).optimize(job, SHIPPED,
        List.of(replay(SyntheticLever.a("a"), 1.2), replay(SyntheticLever.a("b"), 1.1)), CONTEXT, Long.MAX_VALUE,
        t -> heard.add(t.index()), List.of());

    assertThat(heard).isEqualTo(r.trials().stream().map(TrialRecord::index).toList());
    assertThat(heard).containsExactly(0, 1, 2);
    assertThat(r.trials().get(2).kind()).isEqualTo(Kind.CONFIRMATION);
  }

  @Test
  void theRankingWeighsGainChanceAndTrialCost() {
    SyntheticJob job = new SyntheticJob(20);
    Result r = optimize(job, List.of(
        replay(SyntheticLever.a("small"), 1.04),
        new Candidate(new SyntheticLever("costly", SafetyClass.A, false, true, 600), 1.2, 0.04, "replay"),
        Candidate.prior(SyntheticLever.a("vague"), 1.1, 0.5),
        replay(SyntheticLever.a("sure"), 1.1)), OPTIONS.withExpectedTrial(Duration.ofSeconds(60)));

    assertThat(r.trials().stream().filter(t -> t.kind() == Kind.SINGLE).map(t -> t.levers().getFirst()))
        .containsExactly("sure", "vague", "small", "costly");
  }

  @Test
  void anInterruptedSearchStopsAndSaysSo() {
    SyntheticJob job = new SyntheticJob(22).effect("a", 1.2);
    Thread.currentThread().interrupt();
    Result r;
    try {
      r = optimize(job, List.of(replay(SyntheticLever.a("a"), 1.2)));
    } finally {
      assertThat(Thread.interrupted()).as("the interrupt is left set").isTrue();
    }
    assertThat(r.stopReason()).isEqualTo(StopReason.INTERRUPTED);
    assertThat(r.anchor()).isEqualTo(SHIPPED);
    assertThat(job.totalOpens()).isZero();
  }

  @Test
  void aTrialCutByAStopRequestIsNotJournaledAndStopsTheSearch() throws Exception {
    SyntheticJob job = new SyntheticJob(23).effect("a", 1.2).hangs("h");
    List<TrialRecord> heard = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread searcher = Thread.currentThread();
    Thread stopper = Thread.ofPlatform().start(() -> {
      // the search waits on the hanging block of trial 2 (its watchdog allows a minute): cut it there
      while (heard.isEmpty() || searcher.getState() != Thread.State.TIMED_WAITING) {
        Thread.onSpinWait();
      }
      searcher.interrupt();
    });
    Result r;
    try {
      r = new Agent(new FakeTicker(), Agent.Options.defaults()
          .withGate(Gate.Options.defaults().withBlockTimeout(Duration.ofMinutes(1))))
          .optimize(job, SHIPPED, List.of(replay(SyntheticLever.a("a"), 1.2), replay(SyntheticLever.a("h"), 1.1)),
              CONTEXT, Long.MAX_VALUE, heard::add, List.of());
    } finally {
      while (stopper.isAlive()) {
        Thread.onSpinWait();
      }
      assertThat(Thread.interrupted()).as("the interrupt is left set").isTrue();
    }
    assertThat(r.stopReason()).isEqualTo(StopReason.INTERRUPTED);
    assertThat(r.trials()).extracting(t -> t.verdict().outcome()).containsExactly(Outcome.KEPT, Outcome.INTERRUPTED);
    assertThat(heard).as("only the completed trial reaches the journal").extracting(t -> t.levers().getFirst())
        .containsExactly("a");
    assertThat(r.detail()).contains("interrupted during trial 2 (h)");
  }

  @Test
  void aChancePassThatTheConfirmationDoesNotReproduceIsGivenUp() {
    // Seed chosen by the search below: a search of four do-nothing levers whose gate kept one by chance.
    for (long seed = 0; seed < 200; seed++) {
      SyntheticJob job = new SyntheticJob(seed).noise(0.05);
      List<Candidate> candidates = new ArrayList<>();
      for (String id : List.of("a", "b", "c", "d")) {
        candidates.add(replay(SyntheticLever.a(id), 1.1));
      }
      Result r = optimize(job, candidates, OPTIONS.withGate(OPTIONS.gate().withSeed(seed)));
      if (r.trials().stream().anyMatch(t -> t.kind() != Kind.CONFIRMATION && t.kept())) {
        assertThat(r.confirmation()).get().extracting(t -> t.verdict().outcome()).isNotEqualTo(Outcome.KEPT);
        assertThat(r.anchor()).isEqualTo(SHIPPED);
        assertThat(r.keptLevers()).isEmpty();
        assertThat(r.totalGain()).isEqualTo(1);
        assertThat(r.detail()).contains("back to the original setup");
        return;
      }
    }
    throw new AssertionError("no seed in 200 gave a chance pass; the scenario no longer reproduces one");
  }

  @Test
  void badInputsAreRefusedWithAMessage() {
    Agent agent = new Agent(new FakeTicker(), OPTIONS);
    SyntheticJob job = new SyntheticJob(21);
    Candidate a = replay(SyntheticLever.a("a"), 1.1);
    assertThatThrownBy(() -> agent.optimize(job, SHIPPED, List.of(a, a), CONTEXT, 0, Agent.Listener.none(),
        List.of())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("candidate twice");
    assertThatThrownBy(() -> agent.optimize(job, SHIPPED, List.of(a), CONTEXT, 0, null, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Candidate.replay(SyntheticLever.a("x"), Double.NaN, 0.1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("predicted gain of x");
    assertThatThrownBy(() -> Candidate.replay(SyntheticLever.a("x"), 1.1, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uncertainty");
    assertThatThrownBy(() -> OPTIONS.withTarget(-0.1)).isInstanceOf(IllegalArgumentException.class);
  }

  /** A lever whose apply fails, as a lever with a bug would. */
  private record ThrowingLever() implements io.gitm.levers.Lever {
    @Override
    public LeverSpec spec() {
      return new LeverSpec("throws", "fails to apply", Set.of(), SafetyClass.A, Scope.MANAGED);
    }

    @Override
    public Applicability check(LeverContext context) {
      return Applicability.yes("always");
    }

    @Override
    public Setup apply(Setup setup, LeverContext context) {
      throw new IllegalArgumentException("no such knob");
    }
  }
}
