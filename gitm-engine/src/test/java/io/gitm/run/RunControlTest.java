package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RunControlTest {
  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void aStopRequestedOutsideTheApplyPhaseSetsTheFlagButInterruptsNothing() {
    RunLoop.Control c = RunLoop.Control.none();
    c.requestStop();
    assertThat(c.stopRequested()).isTrue();
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void aStopRequestedBeforeTheApplyPhaseInterruptsItAsItStarts() {
    RunLoop.Control c = RunLoop.Control.none();
    c.requestStop();
    c.enterApply();
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(c.leaveApply()).isTrue();
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void aStopDuringTheApplyPhaseInterruptsTheApplyingThreadAndNoLaterOne() {
    RunLoop.Control c = RunLoop.Control.none();
    c.enterApply();
    Thread other = Thread.ofPlatform().start(c::requestStop);
    while (other.isAlive()) {
      Thread.onSpinWait();
    }
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(c.leaveApply()).isTrue();
    c.requestStop();
    assertThat(Thread.currentThread().isInterrupted()).as("after the apply phase nothing is interrupted").isFalse();
  }

  @Test
  void anApplyPhaseWithoutAStopLeavesWithoutAnInterrupt() {
    RunLoop.Control c = RunLoop.Control.none();
    c.enterApply();
    assertThat(c.leaveApply()).isFalse();
    assertThat(c.stopRequested()).isFalse();
  }
}
