package io.gitm.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.job.Job;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.search.Verdict.Outcome;
import io.gitm.testkit.FakeTicker;
import io.gitm.workload.OutputDigest;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The sequential gate's error rates and cost against the fixed design's, by simulation: many seeded gates over a
 * synthetic job whose true effect and noise are known (no device, no clock). Each block's metric is {@code 1000 *
 * exp(effect + b_i + e)} with {@code e} Gaussian of the given relative noise, {@code b_i} a cause shared by block i
 * of both arms (the same input batch) and {@code effect} the log of the candidate's true gain (0 for the anchor).
 *
 * <p>The fixed design is the gate before it looked on the way: 8 pairs, one look, the signed-rank test. The
 * sequential one is the default: at most 10 pairs, a look every 2. The bootstrap runs 400 resamples here instead of
 * 2000 to keep the simulation short; the bound on a false keep does not depend on them. A rate's simulation error is
 * its binomial standard error, {@code sqrt(r (1 - r) / n)}.
 */
class GateSequentialTest {
  private static final Setup ANCHOR = Setup.shipped();
  private static final Setup CANDIDATE = Setup.shipped().withCpus(Set.of(1));
  private static final Gate.Options SEQUENTIAL = Gate.Options.defaults().withResamples(400)
      .withBlockTimeout(Duration.ofSeconds(30));
  private static final Gate.Options FIXED = SEQUENTIAL.fixed(8);

  /** What many gates of one design decided on one kind of job. */
  private record Tally(int gates, int kept, int slower, long pairs) {
    double keptRate() {
      return (double) kept / gates;
    }

    double slowerRate() {
      return (double) slower / gates;
    }

    double meanPairs() {
      return (double) pairs / gates;
    }

    /** Two binomial standard errors of a rate near {@code r}. */
    double twoErrors(double r) {
      return 2 * Math.sqrt(r * (1 - r) / gates);
    }
  }

  private static Tally simulate(Gate.Options options, double gain, double noise, double shared, int gates,
      long seed) {
    int kept = 0;
    int slower = 0;
    long pairs = 0;
    for (int g = 0; g < gates; g++) {
      PairedJob job = new PairedJob(Math.log(gain), noise, shared, seed * 1_000_003L + g);
      Verdict v = new Gate(new FakeTicker(), options).judge(job, ANCHOR, CANDIDATE, SafetyClass.A, 0);
      kept += v.outcome() == Outcome.KEPT ? 1 : 0;
      slower += v.outcome() == Outcome.SLOWER ? 1 : 0;
      pairs += v.anchorSamples().length;
    }
    return new Tally(gates, kept, slower, pairs);
  }

  @Test
  void underNoEffectTheSequentialGateKeepsNoMoreOftenThanTheFixedDesignsAlpha() {
    int n = 3000;
    Tally seq = simulate(SEQUENTIAL, 1.0, 0.03, 0, n, 1);
    Tally fixed = simulate(FIXED, 1.0, 0.03, 0, n, 1);
    Tally seqShared = simulate(SEQUENTIAL, 1.0, 0.03, 0.05, n, 2);
    System.out.printf(Locale.ROOT, "no effect, 3%% noise: false keep %.4f sequential, %.4f fixed (%d gates each);"
        + " with a shared cause of 5%% per block %.4f; mean pairs %.2f sequential, %.2f fixed%n", seq.keptRate(),
        fixed.keptRate(), n, seqShared.keptRate(), seq.meanPairs(), fixed.meanPairs());

    // a false keep is a two-sided test's rejection in the gain's direction: at most alpha / 2 = 0.025
    double bound = Gate.Options.defaults().alpha() / 2;
    assertThat(seq.keptRate()).as("false keeps, sequential").isLessThanOrEqualTo(bound + seq.twoErrors(bound));
    assertThat(seqShared.keptRate()).as("false keeps, sequential, with a shared cause per block")
        .isLessThanOrEqualTo(bound + seqShared.twoErrors(bound));
    assertThat(fixed.keptRate()).as("false keeps, fixed").isLessThanOrEqualTo(bound + fixed.twoErrors(bound));
  }

  @Test
  void onAClearGainOrLossTheSequentialGateDecidesAsOftenInAThirdOfTheFixedDesignsPairs() {
    int n = 400;
    for (double noise : new double[] {0.02, 0.04}) {
      Tally seqGain = simulate(SEQUENTIAL, 2.0, noise, 0, n, 3);
      Tally fixedGain = simulate(FIXED, 2.0, noise, 0, n, 3);
      Tally seqLoss = simulate(SEQUENTIAL, 0.5, noise, 0, n, 4);
      Tally fixedLoss = simulate(FIXED, 0.5, noise, 0, n, 4);
      System.out.printf(Locale.ROOT, "noise %.0f%%: x2 kept %.3f sequential in %.2f pairs, %.3f fixed in %.2f;"
          + " x0.5 slower %.3f sequential in %.2f pairs, %.3f fixed in %.2f (%d gates each)%n", 100 * noise,
          seqGain.keptRate(), seqGain.meanPairs(), fixedGain.keptRate(), fixedGain.meanPairs(),
          seqLoss.slowerRate(), seqLoss.meanPairs(), fixedLoss.slowerRate(), fixedLoss.meanPairs(), n);

      assertThat(seqGain.keptRate()).as("power at x2, noise " + noise).isGreaterThanOrEqualTo(fixedGain.keptRate());
      assertThat(seqLoss.slowerRate()).as("loss found at x0.5, noise " + noise)
          .isGreaterThanOrEqualTo(fixedLoss.slowerRate());
      assertThat(seqGain.meanPairs()).as("pairs per decision at x2, noise " + noise)
          .isLessThanOrEqualTo(fixedGain.meanPairs() / 3);
      assertThat(seqLoss.meanPairs()).as("pairs per decision at x0.5, noise " + noise)
          .isLessThanOrEqualTo(fixedLoss.meanPairs() / 3);
    }
  }

  @Test
  void atAModestGainTheSequentialGatesPowerIsNotBelowTheFixedDesigns() {
    int n = 1000;
    Tally seq = simulate(SEQUENTIAL, 1.10, 0.04, 0, n, 5);
    Tally fixed = simulate(FIXED, 1.10, 0.04, 0, n, 5);
    System.out.printf(Locale.ROOT, "x1.10, 4%% noise: kept %.3f sequential in %.2f pairs, %.3f fixed in %.2f%n",
        seq.keptRate(), seq.meanPairs(), fixed.keptRate(), fixed.meanPairs());

    assertThat(seq.keptRate()).isGreaterThanOrEqualTo(fixed.keptRate() - seq.twoErrors(fixed.keptRate()));
    assertThat(seq.meanPairs()).isLessThan(fixed.meanPairs());
  }

  @Test
  void theGainsIntervalCoversTheTrueGainNearItsConfidence() {
    int n = 1000;
    int covered = 0;
    for (int g = 0; g < n; g++) {
      Verdict v = new Gate(new FakeTicker(), SEQUENTIAL).judge(new PairedJob(Math.log(1.1), 0.03, 0, 6_000 + g),
          ANCHOR, CANDIDATE, SafetyClass.A, 0);
      covered += v.ciLow() <= 1.1 && 1.1 <= v.ciHigh() ? 1 : 0;
    }
    double rate = (double) covered / n;
    System.out.printf(Locale.ROOT, "x1.10, 3%% noise: the 95%% interval covers the true gain in %.3f of %d gates%n",
        rate, n);

    // an interval taken where the trial stopped is not exactly at its nominal level: within 5 points of it
    assertThat(rate).isGreaterThanOrEqualTo(0.90);
  }

  /**
   * The synthetic job: the anchor's and the candidate's run each count their blocks, and block i of both draws
   * the same shared cause {@code b_i}.
   */
  private static final class PairedJob implements Job {
    private final double effect;
    private final double noise;
    private final double[] shared = new double[64];
    private final SplittableRandom random;

    PairedJob(double effect, double noise, double sharedNoise, long seed) {
      this.effect = effect;
      this.noise = noise;
      this.random = new SplittableRandom(seed);
      for (int i = 0; i < shared.length; i++) {
        shared[i] = sharedNoise * gaussian(random);
      }
    }

    @Override
    public String metric() {
      return "items/s";
    }

    @Override
    public boolean higherIsBetter() {
      return true;
    }

    @Override
    public Run open(Setup setup) {
      double arm = setup.equals(ANCHOR) ? 0 : effect;
      return new Run() {
        private int block;

        @Override
        public double block() {
          synchronized (PairedJob.this) {
            return 1000 * Math.exp(arm + shared[block++ % shared.length] + noise * gaussian(random));
          }
        }

        @Override
        public OutputDigest output() {
          return new OutputDigest("0", null);
        }

        @Override
        public void close() {}
      };
    }

    private static double gaussian(SplittableRandom r) {
      // Box–Muller: the gate's tests need no more than a seeded standard normal
      double u = 1 - r.nextDouble();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble());
    }
  }
}
