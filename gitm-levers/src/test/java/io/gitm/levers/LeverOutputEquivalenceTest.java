package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.HostMemoryKind;
import io.gitm.levers.HftOnSim.Outcome;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.ExecutionConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every class-A lever that applies to hft-lob leaves its output bit-identical: the run under the lever has the
 * shipped run's digest (books, features and signals) on the same input. A lever is applied to the first of a few
 * anchors where its precondition holds (some need others in effect first).
 */
class LeverOutputEquivalenceTest {
  @TempDir
  static Path data;

  static Outcome shipped;

  static final ExecutionConfig S = ExecutionConfig.shipped();
  static final List<Setup> ANCHORS = List.of(
      Setup.shipped(),
      Setup.of(S.withHostMemory(HostMemoryKind.PINNED)),
      Setup.of(S.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false)),
      Setup.of(S.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false)
          .withAllocation(Allocation.PREALLOCATED, 0)),
      Setup.of(S.withAllocation(Allocation.POOL, 0)),
      Setup.of(S.withKernelVariants(Map.of("lob_book", "warp"))),
      Setup.of(S.withHostMemory(HostMemoryKind.PINNED).withStreams(2, true, false)
          .withAllocation(Allocation.PREALLOCATED, 0)),
      Setup.shipped().withScheduling(io.gitm.device.SchedulingMode.YIELD));
  /** Class-A managed levers hft-lob does not offer: it has no kernel with shared memory, and no cold block. */
  static final java.util.Set<String> NOT_ON_HFT = java.util.Set.of("shared-carveout-max-l1", "warmup");

  @BeforeAll
  static void shippedRun() throws Exception {
    shipped = HftOnSim.run(data, Setup.shipped());
  }

  static Stream<String> classALevers() {
    return Levers.candidates(Contexts.hft(Setup.shipped())).stream()
        .filter(l -> l.safety() == SafetyClass.A && l.scope() == Lever.Scope.MANAGED).map(Lever::id);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("classALevers")
  void aClassALeverKeepsHftLobsOutputBitIdentical(String id) throws Exception {
    Lever l = Levers.byId(id);
    if (NOT_ON_HFT.contains(id)) {
      assertThat(ANCHORS).as(id).noneMatch(a -> l.check(Contexts.hft(a)).applies());
      return;
    }
    Setup anchor = ANCHORS.stream().filter(a -> l.check(Contexts.hft(a)).applies()).findFirst().orElse(null);
    assertThat(anchor).as(id + " applies to hft-lob from one of the anchors; on shipped: "
        + l.check(Contexts.hft(Setup.shipped())).reason()).isNotNull();
    Setup s = l.apply(anchor, Contexts.hft(anchor));
    assertThat(s).isNotEqualTo(anchor);
    Outcome o = HftOnSim.run(data, s);
    assertThat(o.output()).as(id).isEqualTo(shipped.output());
    Outcome a = HftOnSim.run(data, anchor);
    assertThat(a.output()).as("anchor of " + id).isEqualTo(shipped.output());
  }

  @Test
  void theListCoversTheRequiredManagedLevers() {
    assertThat(classALevers().toList()).contains("pinned-host-memory", "async-copies", "pool-allocation",
        "pool-release-threshold", "preallocate", "graph-capture", "streams-2", "streams-4", "stream-priority",
        "copy-compute-overlap", "occupancy-block-size", "kernel-variant:lob_book=warp", "l2-persist-window",
        "shared-carveout-max-l1", "sched-spin", "sched-yield", "sched-blocking-sync", "warmup", "cpu-affinity",
        "batch-coalesce-2", "batch-coalesce-4");
  }
}
