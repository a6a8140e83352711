package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.agents.TrialRecord;
import io.gitm.agents.Verdict;
import io.gitm.api.Budget;
import io.gitm.kernels.Setup;
import io.gitm.scheduler.PhasePlan;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressTest {
  static Verdict kept(double gain) {
    return new Verdict(Verdict.Outcome.KEPT, "better", Verdict.Arm.NONE, new double[] {1}, new double[] {gain}, 1, gain, gain,
        gain, gain * 0.98, gain * 1.02, 0.0078, 0, 16, 5_000_000_000L);
  }

  @Test
  void aConfirmationIsShownAsSuchAndNotAsAnotherTrialOfTheKeptLevers() {
    StringWriter s = new StringWriter();
    Progress p = new Progress(new PrintWriter(s), false, () -> 60_000_000_000L);
    PhasePlan plan = new PhasePlan(Budget.parse("3m"));
    p.trial(new TrialRecord(0, TrialRecord.Kind.SINGLE, List.of("pool-allocation"), List.of(), Setup.shipped(), 1.2,
        "replay", kept(1.21)), 0, plan);
    p.trial(new TrialRecord(1, TrialRecord.Kind.CONFIRMATION, List.of("pool-allocation"), List.of(),
        Setup.shipped(), 1.21, "chained", kept(1.24)), 0, plan);
    String[] lines = s.toString().split("\n");
    assertThat(lines[0]).startsWith("trial 1   pool-allocation").contains("KEPT").contains("best so far +21.0%");
    assertThat(lines[1]).startsWith("confirm   pool-allocation").contains("CONFIRMED").contains("gain +24.0%")
        .contains("best so far +24.0%").doesNotContain("trial 2");
  }
}
