package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** torch-threads: torch's intra-op pool sized to the job's CPUs per busy process, from the hook's thread count. */
class TorchThreadsLeverTest {
  private static LeverContext withFacts(Map<String, Double> facts) {
    return new LeverContext(null, Contexts.REAL_H200, List.of(), facts, false, Setup.shipped());
  }

  @Test
  void anOversubscribedPoolIsSizedToTheCpusPerBusyProcessAndAFittingOneIsLeftAlone() {
    Lever threads = Levers.byId("torch-threads");
    LeverContext over = withFacts(Map.of(LeverContext.FACT_TORCH_STEPS, 50.0, LeverContext.FACT_TORCH_THREADS, 32.0,
        LeverContext.FACT_HOST_CPUS, 8.0, LeverContext.FACT_JOB_PROCESSES, 2.0));
    assertThat(threads.check(over).applies()).isTrue();
    assertThat(threads.check(over).reason()).contains("32 intra-op threads where 4 CPU(s)");
    assertThat(threads.apply(Setup.shipped(), over).environment())
        .containsEntry(LeverContext.TORCH_LEVERS_VARIABLE, "threads=4");
    assertThat(threads.safety()).isEqualTo(SafetyClass.B);

    LeverContext fits = withFacts(Map.of(LeverContext.FACT_TORCH_STEPS, 50.0, LeverContext.FACT_TORCH_THREADS, 8.0,
        LeverContext.FACT_HOST_CPUS, 8.0));
    assertThat(threads.check(fits).applies()).isFalse();
    assertThat(threads.check(fits).reason()).contains("8 intra-op threads fit the 8 CPU(s)");

    LeverContext unknown = withFacts(Map.of(LeverContext.FACT_TORCH_STEPS, 50.0, LeverContext.FACT_HOST_CPUS, 8.0));
    assertThat(threads.check(unknown).reason()).contains("no intra-op thread count");
  }
}
