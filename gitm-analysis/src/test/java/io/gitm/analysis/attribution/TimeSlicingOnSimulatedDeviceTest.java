package io.gitm.analysis.attribution;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.analysis.Analysis;
import org.junit.jupiter.api.Test;

/**
 * Another context time-slicing the simulated device from mid-run ({@code time-slicing} fault) on {@link SyntheticJob}:
 * the job's ready work waits through the other's slices, the samples list the other process, and the analysis names
 * contention first, from the queued time; the same job without the fault names no contention.
 */
class TimeSlicingOnSimulatedDeviceTest {
  private static Hypothesis contention(Analysis.Result a) {
    return a.hypotheses().stream().filter(h -> h.cause() == Cause.CONTENTION).findFirst().orElse(null);
  }

  @Test
  void anotherContextTimeSlicingFromMidRunIsContentionFromQueuedWork() {
    for (long seed = 1; seed <= 3; seed++) {
      Analysis.Result a = SyntheticJob.analyze("time-slicing@60ms", seed, 200, 20e9);
      assertThat(a.hypotheses()).as("seed %d: %s", seed, a.hypotheses()).isNotEmpty();
      assertThat(a.hypotheses().getFirst().cause()).as("seed %d: %s", seed, a.hypotheses())
          .isEqualTo(Cause.CONTENTION);
      Evidence queue = a.hypotheses().getFirst().evidence().stream().filter(e -> e.kind().equals("queue"))
          .findFirst().orElseThrow();
      assertThat(queue.summary()).contains("saw another process");
      assertThat((Long) queue.data().get("gaps")).isPositive();
    }
  }

  @Test
  void kernelsPausedAcrossTheOtherContextsSlicesAreHeldTimeOfContention() {
    // compute kernels of about 2 ms, longer than the job's 1.5 ms slice: from the onset each is paused for the other's
    // slice; before it (two thirds of the run) they set the kernel's median
    for (long seed = 1; seed <= 3; seed++) {
      Analysis.Result a = SyntheticJob.analyze("time-slicing@100ms", seed, 60, 1e11);
      assertThat(a.hypotheses()).as("seed %d: %s", seed, a.hypotheses()).isNotEmpty();
      Hypothesis first = a.hypotheses().getFirst();
      assertThat(first.cause()).as("seed %d: %s", seed, a.hypotheses()).isEqualTo(Cause.CONTENTION);
      Evidence queue = first.evidence().stream().filter(e -> e.kind().equals("queue")).findFirst().orElseThrow();
      assertThat((Long) queue.data().get("heldKernels")).as(queue.summary()).isPositive();
      assertThat(queue.summary()).contains("held while another context ran");
    }
  }

  @Test
  void theSameJobWithoutTheOtherContextHasNoContention() {
    for (long seed = 1; seed <= 3; seed++) {
      Analysis.Result a = SyntheticJob.analyze("", seed, 200, 20e9);
      assertThat(contention(a)).as("seed %d: %s", seed, a.hypotheses()).isNull();
      Analysis.Result longKernels = SyntheticJob.analyze("", seed, 60, 1e11);
      assertThat(contention(longKernels)).as("seed %d: %s", seed, longKernels.hypotheses()).isNull();
    }
  }
}
