package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gitm.device.Device;
import io.gitm.device.DeviceRequest;
import io.gitm.job.Job;
import io.gitm.job.ManagedJob;
import io.gitm.os.CpuAffinity;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CPU-affinity binding, and a managed job pinning the threads that run it (Linux). */
class HostThreadPinningTest {
  @TempDir
  Path data;

  SortedSet<Integer> before;

  @BeforeEach
  void linuxOnly() {
    assumeTrue(CpuAffinity.supported(), CpuAffinity.unsupportedReason());
    before = CpuAffinity.of(0);
  }

  @AfterEach
  void restore() {
    if (before != null) {
      CpuAffinity.pin(0, before);
    }
  }

  /** A workload whose every step notes the CPUs its thread may use. */
  static final class Watching implements Workload {
    final ScriptedWorkload inner = new ScriptedWorkload(1000, 1000, 1, true);
    final List<SortedSet<Integer>> seen = new ArrayList<>();

    @Override
    public WorkloadSpec spec() {
      return inner.spec();
    }

    @Override
    public Session open(Device device, ExecutionConfig config, Path dataDir) {
      Session s = inner.open(device, config, dataDir);
      return new Session() {
        @Override
        public IterationResult step() {
          seen.add(CpuAffinity.of(0));
          return s.step();
        }

        @Override
        public boolean hasNext() {
          return s.hasNext();
        }

        @Override
        public OutputDigest output() {
          return s.output();
        }

        @Override
        public void close() {
          s.close();
        }
      };
    }
  }

  @Test
  void theBindingReadsAndSetsTheCallingThreadsCpus() {
    assertThat(before).isNotEmpty();
    int cpu = before.last();
    CpuAffinity.pin(0, Set.of(cpu));
    assertThat(CpuAffinity.of(0)).containsExactly(cpu);
    assertThat(CpuAffinity.of(CpuAffinity.currentThreadId())).containsExactly(cpu);
    CpuAffinity.pin(0, before);
    assertThat(CpuAffinity.of(0)).isEqualTo(before);
  }

  @Test
  void cpusThatCannotBeUsedAreOneLineErrors() {
    assertThatThrownBy(() -> CpuAffinity.pin(0, Set.of(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("CPU -1 is outside 0..8191");
    assertThatThrownBy(() -> CpuAffinity.pin(0, Set.of())).hasMessage("pinning a thread needs at least one CPU");
    assertThatThrownBy(() -> CpuAffinity.pin(0, Set.of(8000))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("EINVAL");
    assertThat(CpuAffinity.of(0)).isEqualTo(before);
  }

  @Test
  void theCpuAffinityLeverPinsTheThreadThatRunsTheBlocksAndTheJobPutsItBack() throws Exception {
    Watching w = new Watching();
    int cpu = before.last();
    Setup pinned = Setup.shipped().withCpus(Set.of(cpu));
    ExecutorService worker = Executors.newSingleThreadExecutor();
    try (ManagedJob job = new ManagedJob(w, new HftOnSim.Recording(), DeviceRequest.first(), data, 3)) {
      Job.Run plain = job.open(Setup.shipped());
      Job.Run run = job.open(pinned);
      assertThat(CpuAffinity.of(0)).as("the opening thread").containsExactly(cpu);
      run.block();
      assertThat(w.seen.getLast()).containsExactly(cpu);
      plain.block();
      assertThat(w.seen.getLast()).as("a run without CPUs on the same thread").isEqualTo(before);
      worker.submit(() -> run.block()).get();
      assertThat(w.seen.getLast()).as("a block on another thread").containsExactly(cpu);
      run.close();
      plain.close();
      assertThat(CpuAffinity.of(0)).as("after the last run").isEqualTo(before);
      assertThat(worker.submit(() -> CpuAffinity.of(0)).get()).isEqualTo(before);
    } finally {
      worker.shutdownNow();
    }
  }

  @Test
  void pinningToACpuTheProcessMayNotUseIsARefusedSetup() {
    try (ManagedJob job = new ManagedJob(new Watching(), new HftOnSim.Recording(), DeviceRequest.first(), data, 3)) {
      assertThatThrownBy(() -> job.open(Setup.shipped().withCpus(Set.of(8000))))
          .isInstanceOf(io.gitm.job.TrialFailure.class).hasMessageContaining("cannot pin the host thread")
          .extracting(e -> ((io.gitm.job.TrialFailure) e).kind())
          .isEqualTo(io.gitm.job.TrialFailure.Kind.SETUP_REFUSED);
    }
    assertThat(CpuAffinity.of(0)).isEqualTo(before);
  }
}
