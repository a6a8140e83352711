package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.api.Budget;
import io.gitm.levers.Setup;
import io.gitm.run.PhasePlan;
import io.gitm.run.RunClock;
import io.gitm.search.TrialRecord;
import io.gitm.search.Verdict;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressTest {
  static Verdict kept(double gain) {
    return new Verdict(Verdict.Outcome.KEPT, "better", Verdict.Arm.NONE, new double[] {1}, new double[] {gain}, 1,
        gain, gain, gain, gain * 0.98, gain * 1.02, 0.0078, 0, 16, 5_000_000_000L);
  }

  @Test
  void aConfirmationIsShownAsSuchAndNotAsAnotherTrialOfTheKeptLevers() {
    StringWriter s = new StringWriter();
    Progress p = new Progress(new PrintWriter(s), false, () -> 60_000_000_000L);
    RunClock clock = new RunClock(new PhasePlan(Budget.parse("3m")), () -> 0L, 0);
    p.trial(new TrialRecord(0, TrialRecord.Kind.SINGLE, List.of("pool-allocation"), List.of(), Setup.shipped(), 1.2,
        "replay", kept(1.21)), clock);
    p.trial(new TrialRecord(1, TrialRecord.Kind.CONFIRMATION, List.of("pool-allocation"), List.of(),
        Setup.shipped(), 1.21, "chained", kept(1.24)), clock);
    String[] lines = s.toString().split("\n");
    assertThat(lines[0]).startsWith("trial 1   pool-allocation").contains("KEPT").contains("best so far +21.0%");
    assertThat(lines[1]).startsWith("confirm   pool-allocation").contains("CONFIRMED").contains("gain +24.0%")
        .contains("best so far +24.0%").doesNotContain("trial 2");
  }

  @Test
  void onAStreamThatIsNotATerminalTheTrialRunningIsAPlainLineAndNothingIsRedrawn() {
    StringWriter s = new StringWriter();
    long[] now = {0};
    Progress p = new Progress(new PrintWriter(s), false, () -> now[0]);
    RunClock clock = new RunClock(new PhasePlan(Budget.parse("1m")), () -> 0L, 0);
    p.header("r1", "sim", "1m (profile 5s, ...)");
    p.trial(new TrialRecord(0, TrialRecord.Kind.SINGLE, List.of("pool-allocation"), List.of(), Setup.shipped(), 1.2,
        "replay", kept(1.10)), clock);
    now[0] = 40_000_000_000L;
    p.trialStarted("trial 2 pinned-host-memory", clock);
    p.close();
    String out = s.toString();
    assertThat(out).doesNotContain("\r").doesNotContain("\u001b");
    String[] lines = out.split("\n");
    assertThat(lines[lines.length - 1]).isEqualTo(
        "trial 2 pinned-host-memory running  [40 s elapsed, 20 s left, best so far +10.0%]");
  }

  @Test
  void onATerminalAStatusLineWithTheTrialRunningIsRedrawnBelowThePlainLines() {
    StringWriter s = new StringWriter();
    Progress p = new Progress(new PrintWriter(s), true, () -> 12_000_000_000L);
    RunClock clock = new RunClock(new PhasePlan(Budget.parse("1m")), () -> 0L, 0);
    p.trialStarted("trial 1 pool-allocation", clock);
    p.line("next");
    p.close();
    String out = s.toString();
    assertThat(out).contains(Progress.CLEAR_LINE + "[starting | 12 s elapsed, 48 s left | best +0.0% | trial 1"
        + " pool-allocation]" + Progress.CLEAR_LINE + "next\n");
    assertThat(out).endsWith(Progress.CLEAR_LINE);
  }

  @Test
  void aTrialReusedOnResumeCountsTowardsTheBestSoFar() {
    StringWriter s = new StringWriter();
    Progress p = new Progress(new PrintWriter(s), false, () -> 1_000_000_000L);
    RunClock clock = new RunClock(new PhasePlan(Budget.parse("1m")), () -> 0L, 0);
    p.reused(new TrialRecord(0, TrialRecord.Kind.SINGLE, List.of("pool-allocation"), List.of(), Setup.shipped(), 1.2,
        "replay", kept(1.25)), clock);
    assertThat(s.toString()).startsWith("reused from the interrupted run: trial 1").contains("best so far +25.0%");
  }
}
