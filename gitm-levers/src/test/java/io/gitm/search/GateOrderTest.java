package io.gitm.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.api.Ticker;
import io.gitm.job.Job;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.workload.OutputDigest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The order of a side-by-side trial's blocks: alternating, or randomized and balanced every two pairs. */
class GateOrderTest {
  private static final Setup CANDIDATE = Setup.shipped().withEnvironment("X", "1");

  /** A job whose runs record which arm ran each block; the candidate is 10% better, with a little jitter. */
  private static final class Recording implements Job {
    final boolean random;
    final StringBuilder order = new StringBuilder();

    Recording(boolean random) {
      this.random = random;
    }

    @Override
    public String metric() {
      return "x/s";
    }

    @Override
    public boolean higherIsBetter() {
      return true;
    }

    @Override
    public boolean sideBySide(Setup a, Setup b) {
      return true;
    }

    @Override
    public boolean randomizedOrder() {
      return random;
    }

    @Override
    public Run open(Setup setup) {
      boolean anchor = setup.equals(Setup.shipped());
      return new Run() {
        @Override
        public double block() {
          order.append(anchor ? 'A' : 'C');
          return (anchor ? 100 : 110) * (1 + 0.001 * Math.sin(order.length()));
        }

        @Override
        public OutputDigest output() {
          return new OutputDigest("same", new double[0]);
        }

        @Override
        public void close() {}
      };
    }
  }

  private static List<String> trials(boolean random) {
    Gate gate = new Gate(Ticker.system(), Gate.Options.defaults().fixed(8).withWarmupBlocks(0));
    List<String> out = new ArrayList<>();
    for (int t = 0; t < 5; t++) {
      Recording job = new Recording(random);
      Verdict v = gate.judge(job, Setup.shipped(), CANDIDATE, SafetyClass.A, 0);
      assertThat(v.outcome()).as(v.detail()).isEqualTo(Verdict.Outcome.KEPT);
      out.add(job.order.toString());
    }
    return out;
  }

  @Test
  void aJobOfOneProcessGetsARandomOrderBalancedWithinEveryTwoPairsOthersTheAlternation() {
    assertThat(trials(false)).containsOnly("ACCAACCAACCAACCA");
    List<String> random = trials(true);
    for (String order : random) {
      for (int g = 0; g < order.length(); g += 4) {
        assertThat(order.substring(g, g + 4)).as(order).isIn("ACCA", "CAAC");
      }
    }
    assertThat(String.join("", random)).contains("CAAC");
    assertThat(random).as("each trial draws its own order").doesNotHaveDuplicates();
  }
}
