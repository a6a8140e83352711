package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.api.Budget;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PhasePlanTest {
  @Test
  void twentyFourHoursSplitsAsTheSeedSays() {
    PhasePlan p = new PhasePlan(Budget.parse("24h"));
    assertThat(p.window(Phase.PROFILE).end()).isEqualTo(Duration.ofHours(2));
    assertThat(p.window(Phase.ATTRIBUTE).end()).isEqualTo(Duration.ofHours(6));
    assertThat(p.window(Phase.RANK).end()).isEqualTo(Duration.ofHours(12));
    assertThat(p.window(Phase.APPLY).end()).isEqualTo(Duration.ofHours(20));
    assertThat(p.window(Phase.REPORT).end()).isEqualTo(Duration.ofHours(24));
  }

  @Test
  void twoMinutesScalesProportionallyAndCoversTheWholeBudget() {
    PhasePlan p = new PhasePlan(Budget.parse("2m"));
    assertThat(p.window(Phase.PROFILE).length()).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.window(Phase.APPLY).length()).isEqualTo(Duration.ofSeconds(40));
    assertThat(p.windows().getFirst().start()).isEqualTo(Duration.ZERO);
    assertThat(p.windows().getLast().end()).isEqualTo(Duration.ofMinutes(2));
    for (int i = 1; i < p.windows().size(); i++) {
      assertThat(p.windows().get(i).start()).isEqualTo(p.windows().get(i - 1).end());
    }
  }

  @Test
  void aPhaseThatFinishesEarlyHandsItsTimeOn() {
    PhasePlan p = new PhasePlan(Budget.parse("24h"));
    Duration profileDoneAt = Duration.ofMinutes(30);
    assertThat(p.remaining(Phase.ATTRIBUTE, profileDoneAt)).isEqualTo(Duration.ofHours(6).minus(profileDoneAt));
    assertThat(p.remaining(Phase.PROFILE, Duration.ofHours(3))).isEqualTo(Duration.ZERO);
  }

  @Test
  void theSetUpComesBeforeThePhasesWhichShareWhatTheBudgetHasLeft() {
    PhasePlan p = new PhasePlan(Budget.parse("2m"), Duration.ofSeconds(24));
    assertThat(p.setUp()).isEqualTo(Duration.ofSeconds(24));
    assertThat(p.window(Phase.PROFILE).start()).isEqualTo(Duration.ofSeconds(24));
    assertThat(p.window(Phase.PROFILE).length()).isEqualTo(Duration.ofSeconds(8));
    assertThat(p.window(Phase.APPLY).length()).isEqualTo(Duration.ofSeconds(32));
    assertThat(p.deadline(Phase.REPORT)).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void aSetUpLongerThanTheBudgetLeavesEveryPhaseEmpty() {
    PhasePlan p = new PhasePlan(Budget.parse("30s"), Duration.ofSeconds(45));
    assertThat(p.setUp()).isEqualTo(Duration.ofSeconds(30));
    assertThat(p.windows()).allSatisfy(w -> assertThat(w.length()).isZero());
  }
}
