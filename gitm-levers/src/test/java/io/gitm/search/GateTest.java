package io.gitm.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gitm.api.Ticker;
import io.gitm.job.Job;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.search.Verdict.Arm;
import io.gitm.search.Verdict.Outcome;
import io.gitm.testkit.FakeTicker;
import io.gitm.workload.OutputDigest;
import java.time.Duration;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class GateTest {
  private static final Setup ANCHOR = Setup.shipped();
  private static final Gate.Options OPTIONS = Gate.Options.defaults().withBlockTimeout(Duration.ofSeconds(60));

  private static Verdict judge(SyntheticJob job, SyntheticLever lever, double tolerance) {
    return new Gate(new FakeTicker(), OPTIONS).judge(job, ANCHOR, lever.apply(ANCHOR, null), lever.safety(),
        tolerance);
  }

  private static Verdict judge(SyntheticJob job, SyntheticLever lever) {
    return judge(job, lever, 0);
  }

  @Test
  void aClearlyFasterCandidateIsKeptWithItsGainInsideTheInterval() {
    SyntheticJob job = new SyntheticJob(1).effect("x", 1.10);
    Verdict v = judge(job, SyntheticLever.a("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.KEPT);
    assertThat(v.ciLow()).isGreaterThan(1).isLessThanOrEqualTo(v.gain());
    assertThat(v.ciHigh()).isGreaterThanOrEqualTo(v.gain());
    assertThat(v.pValue()).isLessThan(0.05);
    int pairs = v.anchorSamples().length;
    assertThat(pairs).as("a sequential gate stops at a look once the gain is clear").isBetween(2, 9);
    assertThat(v.candidateSamples()).hasSize(pairs);
    assertThat(v.blocks()).isEqualTo(2 * (pairs + 1));
    assertThat(v.plan()).isEqualTo(new Verdict.Plan(10, 10, pairs / 2));
    assertThat(v.outputDifference()).isZero();
  }

  @Test
  void aSlowerCandidateIsRolledBackAsSlower() {
    SyntheticJob job = new SyntheticJob(2).effect("x", 0.90);
    Verdict v = judge(job, SyntheticLever.a("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.SLOWER);
    assertThat(v.ciHigh()).isLessThan(1);
  }

  @Test
  void aLeverWithNoEffectIsNotSignificant() {
    SyntheticJob job = new SyntheticJob(3).noise(0.03);
    Verdict v = judge(job, SyntheticLever.a("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.NOT_SIGNIFICANT);
    assertThat(v.ciLow()).isLessThanOrEqualTo(1);
  }

  @Test
  void aRealGainSmallerThanTheMinimumIsRolledBackAsBelowMinGain() {
    SyntheticJob job = new SyntheticJob(4).noise(0.001).effect("x", 1.01);
    Verdict v = judge(job, SyntheticLever.a("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.BELOW_MIN_GAIN);
    assertThat(v.ciLow()).isGreaterThan(1);
  }

  @Test
  void whenLowerIsBetterAFallingMetricIsAGain() {
    SyntheticJob job = new SyntheticJob(5).lowerIsBetter().effect("x", 1.2);
    Verdict v = judge(job, SyntheticLever.a("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.KEPT);
    assertThat(v.candidateMedian()).isLessThan(v.anchorMedian());
    assertThat(v.ratio()).isLessThan(1);
    assertThat(v.gain()).isCloseTo(1.2, within(0.04));
  }

  @Test
  void aFasterCandidateWhoseOutputChangesIsRolledBackUnderClassA() {
    SyntheticJob job = new SyntheticJob(6).effect("x", 1.3).corrupts("x");
    Verdict v = judge(job, SyntheticLever.a("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
    assertThat(v.failedArm()).isEqualTo(Arm.CANDIDATE);
    assertThat(v.gain()).as("measured anyway, for the report").isGreaterThan(1.2);
  }

  @Test
  void aClassBCandidateWithinToleranceIsKept() {
    SyntheticJob job = new SyntheticJob(7).effect("x", 1.1).shifts("x", 1e-4);
    Verdict v = judge(job, SyntheticLever.b("x"), 1e-3);

    assertThat(v.outcome()).isEqualTo(Outcome.KEPT);
    assertThat(v.outputDifference()).isCloseTo(1e-4, within(1e-6));
  }

  @Test
  void aClassBCandidateOutsideToleranceIsRolledBack() {
    SyntheticJob job = new SyntheticJob(8).effect("x", 1.1).shifts("x", 1e-2);
    Verdict v = judge(job, SyntheticLever.b("x"), 1e-3);

    assertThat(v.outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
    assertThat(v.detail()).contains("tolerance");
  }

  @Test
  void theSameShiftUnderClassAIsAnOutputChange() {
    SyntheticJob job = new SyntheticJob(9).effect("x", 1.1).shifts("x", 1e-4);
    assertThat(judge(job, SyntheticLever.a("x"), 1e-3).outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
  }

  @Test
  void aJobWhoseOwnRunsDisagreeHasClassALeversComparedWithinItsTolerance() {
    SyntheticJob job = new SyntheticJob(9).effect("x", 1.1).shifts("x", 1e-4).unreproducible();
    Verdict v = judge(job, SyntheticLever.a("x"), 1e-3);
    assertThat(v.outcome()).isEqualTo(Outcome.KEPT);
    assertThat(v.detail()).contains("not bit for bit: the job's own output differs from run to run");
    SyntheticJob far = new SyntheticJob(9).effect("x", 1.1).shifts("x", 1e-2).unreproducible();
    Verdict w = judge(far, SyntheticLever.a("x"), 1e-3);
    assertThat(w.outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
    assertThat(w.detail()).contains("beyond the tolerance").contains("not bit for bit");
  }

  @Test
  void nanInTheCandidatesOutputIsNanOutputEvenUnderClassB() {
    SyntheticJob job = new SyntheticJob(10).effect("x", 1.1).nan("x");
    assertThat(judge(job, SyntheticLever.b("x"), 0.5).outcome()).isEqualTo(Outcome.NAN_OUTPUT);
  }

  /** A job twice as fast under a pinned setup, whose output is {@code anchor} shipped and {@code candidate} pinned. */
  private static Job outputJob(OutputDigest anchor, OutputDigest candidate) {
    return new Job() {
      @Override
      public String metric() {
        return "x/s";
      }

      @Override
      public boolean higherIsBetter() {
        return true;
      }

      @Override
      public Run open(Setup setup) {
        return new Run() {
          @Override
          public double block() {
            return setup.cpus().isEmpty() ? 1 : 2;
          }

          @Override
          public OutputDigest output() {
            return setup.cpus().isEmpty() ? anchor : candidate;
          }

          @Override
          public void close() {}
        };
      }
    };
  }

  @Test
  void aClassBCandidateWhoseNonNumericPartChangesIsAnOutputChangeWhateverItsValues() {
    double[] values = {1.0, 2.0};
    Job job = outputJob(new OutputDigest("a", values, "fixed-anchor", 1e-12),
        new OutputDigest("b", values, "fixed-candidate", 1e-12));
    Verdict v = new Gate(new FakeTicker(), OPTIONS).judge(job, ANCHOR, ANCHOR.withCpus(Set.of(1)), SafetyClass.B,
        0.5);

    assertThat(v.outcome()).isEqualTo(Outcome.OUTPUT_CHANGED);
    assertThat(v.failedArm()).isEqualTo(Arm.CANDIDATE);
    assertThat(v.detail()).contains("non-numeric part differs").contains("fixed-ancho").contains("fixed-candi");
  }

  @Test
  void aClassBCandidateWithTheSameNonNumericPartAndCloseValuesIsKept() {
    Job job = outputJob(new OutputDigest("a", new double[] {1.0, 2.0}, "fixed", 1e-12),
        new OutputDigest("b", new double[] {1.0, 2.0 + 1e-9}, "fixed", 1e-12));
    Verdict v = new Gate(new FakeTicker(), OPTIONS).judge(job, ANCHOR, ANCHOR.withCpus(Set.of(1)), SafetyClass.B,
        1e-6);

    assertThat(v.outcome()).isEqualTo(Outcome.KEPT);
  }

  @Test
  void aCrashingCandidateIsACrashAndEveryRunIsClosed() {
    SyntheticJob job = new SyntheticJob(11).crashes("x");
    Verdict v = judge(job, SyntheticLever.a("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.CRASH);
    assertThat(v.failedArm()).isEqualTo(Arm.CANDIDATE);
    assertThat(v.detail()).contains("synthetic crash of lever x");
    assertThat(job.openNow()).isZero();
  }

  @Test
  void outOfMemoryIsNamedAsSuch() {
    SyntheticJob job = new SyntheticJob(12).runsOutOfMemory("x");
    assertThat(judge(job, SyntheticLever.a("x")).outcome()).isEqualTo(Outcome.OUT_OF_MEMORY);
  }

  @Test
  void aSetupRefusedAtOpenIsSetupRefused() {
    SyntheticJob job = new SyntheticJob(13).refuses("x");
    Verdict v = judge(job, SyntheticLever.a("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.SETUP_REFUSED);
    assertThat(v.blocks()).isZero();
    assertThat(job.openNow()).isZero();
  }

  @Test
  void aHangingBlockIsCutByTheWatchdogAndTheRunsAreClosed() throws InterruptedException {
    SyntheticJob job = new SyntheticJob(14).hangs("x");
    Gate gate = new Gate(new FakeTicker(), OPTIONS.withBlockTimeout(Duration.ofSeconds(1)));
    long begin = System.nanoTime();
    Verdict v = gate.judge(job, ANCHOR, SyntheticLever.a("x").apply(ANCHOR, null), SafetyClass.A, 0);
    long took = System.nanoTime() - begin;

    assertThat(v.outcome()).isEqualTo(Outcome.HANG);
    assertThat(v.failedArm()).isEqualTo(Arm.CANDIDATE);
    assertThat(v.detail()).contains("1000 ms");
    assertThat(Duration.ofNanos(took)).as("the hang is cut, not waited out").isLessThan(Duration.ofMinutes(2));
    // the abandoned worker is interrupted on its own thread: wait for it, as long as only a hang would take
    long until = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while ((job.hangingNow() > 0 || job.openNow() > 0) && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertThat(job.hangingNow()).as("no block is left hanging").isZero();
    assertThat(job.interruptedBlocks()).as("a block that hung was interrupted").isLessThanOrEqualTo(1);
    assertThat(job.openNow()).isZero();
  }

  @Test
  void anExceptionFromTheJobNeverEscapes() {
    Job job = new Job() {
      @Override
      public String metric() {
        return "x/s";
      }

      @Override
      public boolean higherIsBetter() {
        return true;
      }

      @Override
      public Run open(Setup setup) {
        throw new UnsupportedOperationException("no such device");
      }
    };
    Verdict v = new Gate(new FakeTicker(), OPTIONS).judge(job, ANCHOR, ANCHOR.withCpus(Set.of(1)), SafetyClass.A,
        0);

    assertThat(v.outcome()).isEqualTo(Outcome.CRASH);
    assertThat(v.failedArm()).as("the anchor is opened first").isEqualTo(Arm.ANCHOR);
    assertThat(v.detail()).contains("no such device");
  }

  @Test
  void aMetricThatIsNotAPositiveNumberIsACrashNotAZero() {
    Job job = new Job() {
      @Override
      public String metric() {
        return "x/s";
      }

      @Override
      public boolean higherIsBetter() {
        return true;
      }

      @Override
      public Run open(Setup setup) {
        return new Run() {
          @Override
          public double block() {
            return setup.cpus().isEmpty() ? 1 : Double.NaN;
          }

          @Override
          public OutputDigest output() {
            return new OutputDigest("0", null);
          }

          @Override
          public void close() {}
        };
      }
    };
    Verdict v = new Gate(new FakeTicker(), OPTIONS).judge(job, ANCHOR, ANCHOR.withCpus(Set.of(1)), SafetyClass.A,
        0);

    assertThat(v.outcome()).isEqualTo(Outcome.CRASH);
    assertThat(v.failedArm()).isEqualTo(Arm.CANDIDATE);
    assertThat(v.detail()).contains("NaN");
  }

  @Test
  void setupsThatCannotCoexistAreOpenedOneAtATimeAndStillJudged() {
    SyntheticJob job = new SyntheticJob(15).effect("x", 1.1);
    SyntheticLever lever = SyntheticLever.reopening("x");
    Verdict v = new Gate(new FakeTicker(), OPTIONS.fixed(8)).judge(job, ANCHOR, lever.apply(ANCHOR, null),
        lever.safety(), 0);

    assertThat(job.mostOpenAtOnce()).isEqualTo(1);
    assertThat(job.opens(Set.of())).isEqualTo(2);
    assertThat(job.opens(Set.of("x"))).isEqualTo(2);
    assertThat(v.outcome()).isEqualTo(Outcome.KEPT);
    assertThat(v.anchorSamples()).hasSize(8);
    assertThat(v.blocks()).as("a warm-up block per session").isEqualTo(2 * (8 + 2));
  }

  @Test
  void aSequentialTrialMeasuredOneSessionAtATimeLooksAfterEachSessionAndStopsOnAClearGain() {
    SyntheticJob job = new SyntheticJob(15).effect("x", 1.3);
    Verdict v = judge(job, SyntheticLever.reopening("x"));

    assertThat(v.outcome()).isEqualTo(Outcome.KEPT);
    assertThat(job.opens(Set.of())).as("the first session of each arm decided it").isEqualTo(1);
    assertThat(job.opens(Set.of("x"))).isEqualTo(1);
    assertThat(v.anchorSamples()).hasSize(5);
    assertThat(v.plan()).isEqualTo(new Verdict.Plan(10, 10, 1));
    assertThat(v.detail()).contains("look 1 at 5 of 10 pairs");
  }

  @Test
  void aTrialMeasuredOneSessionAtATimeAndPlannedForTwoPairsLooksOnceBothArmsHaveTwo() {
    SyntheticJob job = new SyntheticJob(22).effect("x", 1.3);
    SyntheticLever lever = SyntheticLever.reopening("x");
    Verdict v = new Gate(new FakeTicker(), OPTIONS).judge(job, ANCHOR, lever.apply(ANCHOR, null), lever.safety(), 0,
        Long.MAX_VALUE, 2);

    assertThat(job.opens(Set.of())).as("two sessions of one pair each").isEqualTo(2);
    assertThat(v.anchorSamples()).hasSize(2);
    assertThat(v.plan()).isEqualTo(new Verdict.Plan(2, 10, 1));
    assertThat(v.outcome()).isIn(Outcome.KEPT, Outcome.NOT_SIGNIFICANT);
  }

  @Test
  void withoutWarmUpBlocksASequentialTrialMeasuredOneSessionAtATimeOpensASessionPerLook() {
    // a process job: no warm-up block, so a session costs only its open; a clear gain stops after 2 pairs, no effect
    // runs sessions of 2 pairs, anchor first and candidate first in turn
    Gate gate = new Gate(new FakeTicker(), OPTIONS.withWarmupBlocks(0));
    SyntheticLever lever = SyntheticLever.reopening("x");
    SyntheticJob clear = new SyntheticJob(23).effect("x", 1.5);
    Verdict gain = gate.judge(clear, ANCHOR, lever.apply(ANCHOR, null), lever.safety(), 0);
    SyntheticJob none = new SyntheticJob(24).noise(0.03);
    Verdict nothing = gate.judge(none, ANCHOR, lever.apply(ANCHOR, null), lever.safety(), 0);

    assertThat(gain.outcome()).isEqualTo(Outcome.KEPT);
    assertThat(gain.anchorSamples()).hasSize(2);
    assertThat(gain.blocks()).isEqualTo(4);
    assertThat(clear.opens(Set.of())).isEqualTo(1);
    int pairs = nothing.anchorSamples().length;
    assertThat(none.opens(Set.of())).as("a session of 2 pairs per look").isEqualTo(pairs / 2);
    assertThat(none.opens(Set.of("x"))).isEqualTo(pairs / 2);
    assertThat(nothing.plan().looks()).isEqualTo(pairs / 2);
  }

  @Test
  void aTrialPlannedSmallerThanTheFullPlanSaysItsLowerPower() {
    SyntheticJob job = new SyntheticJob(21).noise(0.03);
    Verdict v = new Gate(new FakeTicker(), OPTIONS).judge(job, ANCHOR, SyntheticLever.a("x").apply(ANCHOR, null),
        SafetyClass.A, 0, Long.MAX_VALUE, 4);

    assertThat(v.plan().pairs()).isEqualTo(4);
    assertThat(v.plan().reduced()).isTrue();
    assertThat(v.anchorSamples().length).isLessThanOrEqualTo(4);
    assertThat(v.detail()).contains("planned 4 of 10 pairs for the time left, so less power: 80% power only at a"
        + " gain of about ×").contains("with all 10");
  }

  @Test
  void setupsThatCanCoexistAreOpenTogether() {
    SyntheticJob job = new SyntheticJob(16).effect("x", 1.1);
    judge(job, SyntheticLever.a("x"));
    assertThat(job.mostOpenAtOnce()).isEqualTo(2);
    assertThat(job.totalOpens()).isEqualTo(2);
    assertThat(job.closed()).isEqualTo(2);
  }

  @Test
  void interleavingCancelsADriftThatWouldOtherwiseLookLikeAGain() {
    // The machine speeds up 0.5% per block; the lever does nothing. Measured one arm after the other, the candidate
    // would look ~8% faster; interleaved, the false keep rate stays at the test's level.
    long keeps = LongStream.range(0, 40)
        .filter(seed -> judge(new SyntheticJob(seed).noise(0.01).drift(0.005), SyntheticLever.a("x")).kept())
        .count();
    assertThat(keeps).isLessThanOrEqualTo(2);
  }

  @Test
  void theVerdictIsReproducibleForASeed() {
    Verdict first = judge(new SyntheticJob(17).effect("x", 1.05).noise(0.03), SyntheticLever.a("x"));
    Verdict again = judge(new SyntheticJob(17).effect("x", 1.05).noise(0.03), SyntheticLever.a("x"));
    assertThat(again).isEqualTo(first);
  }

  @Test
  void theTrialStopsAtItsDeadline() {
    FakeTicker ticker = new FakeTicker();
    SyntheticJob job = new SyntheticJob(18).effect("x", 1.2).ticking(ticker, 1, 0);
    Verdict v = new Gate(ticker, OPTIONS.fixed(8)).judge(job, ANCHOR, SyntheticLever.a("x").apply(ANCHOR, null),
        SafetyClass.A, 0, 10_000_000_000L);

    assertThat(v.outcome()).isEqualTo(Outcome.OUT_OF_BUDGET);
    assertThat(ticker.nanos()).isLessThanOrEqualTo(10_000_000_000L);
    assertThat(v.blocks()).isEqualTo(10);
    assertThat(job.openNow()).isZero();
  }

  @Test
  void theWallTimeIsReadOffTheInjectedTicker() {
    FakeTicker ticker = new FakeTicker();
    SyntheticJob job = new SyntheticJob(19).effect("x", 1.2).ticking(ticker, 0.5, 2);
    Verdict v = new Gate(ticker, OPTIONS.fixed(8)).judge(job, ANCHOR, SyntheticLever.a("x").apply(ANCHOR, null),
        SafetyClass.A, 0);
    assertThat(v.wallNanos()).isEqualTo(2 * 2_000_000_000L + 18 * 500_000_000L);
  }

  @Test
  void badArgumentsAreRefusedWithAMessage() {
    Gate gate = new Gate(Ticker.system(), OPTIONS);
    SyntheticJob job = new SyntheticJob(20);
    assertThatThrownBy(() -> gate.judge(job, ANCHOR, ANCHOR, SafetyClass.B, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tolerance");
    assertThatThrownBy(() -> gate.judge(null, ANCHOR, ANCHOR, SafetyClass.A, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OPTIONS.fixed(3)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot reach p < 0.05");
    assertThatThrownBy(() -> OPTIONS.withPairs(1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 pairs or more");
    assertThatThrownBy(() -> gate.judge(job, ANCHOR, ANCHOR, SafetyClass.A, 0, Long.MAX_VALUE, 11))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 to 10 pairs");
    assertThatThrownBy(() -> OPTIONS.withMinGain(-0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OPTIONS.withBlockTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OPTIONS.withAlpha(1)).isInstanceOf(IllegalArgumentException.class);
  }
}
