package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.TraceChange;
import io.gitm.trace.TraceChange.CopiesOnSideStream;
import io.gitm.trace.TraceChange.GraphLaunches;
import io.gitm.trace.TraceChange.PinnedCopies;
import io.gitm.trace.TraceChange.PoolAllocations;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class LeversRegistryTest {
  @Test
  void theLibraryHoldsAtLeastFifteenLeversWithDistinctIdsEachFoundById() {
    List<Lever> all = Levers.all();
    assertThat(all).hasSizeGreaterThanOrEqualTo(15);
    assertThat(all.stream().map(Lever::id).distinct()).hasSameSizeAs(all);
    for (Lever l : all) {
      assertThat(Levers.byId(l.id())).isSameAs(l);
      assertThat(l.description()).isNotBlank();
      assertThat(l.safety()).isNotNull();
      assertThat(l.scope()).isNotNull();
      assertThat(l.trialCostSeconds()).isGreaterThanOrEqualTo(0);
      assertThat(l.addresses()).isNotNull();
    }
  }

  @Test
  void anUnknownIdIsAOneLineErrorListingTheKnownOnes() {
    assertThatThrownBy(() -> Levers.byId("turbo")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown lever 'turbo'; known: pinned-host-memory, ")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> Levers.byId(" ")).hasMessage("no lever id given");
    assertThatThrownBy(() -> Levers.byId("kernel-variant:lob_book")).hasMessageContaining(
        "is not kernel-variant:<family>=<variant>");
  }

  @Test
  void kernelVariantLeversComeFromTheWorkloadsShippedVariantsBesidesTheDefault() {
    LeverContext c = Contexts.hft(Setup.shipped());
    Set<String> variants = Levers.candidates(c).stream().map(Lever::id).filter(i -> i.startsWith("kernel-variant:"))
        .collect(Collectors.toSet());
    // 'thread' is lob_book's default: a lever choosing it would only undo 'warp'
    assertThat(variants).containsExactly("kernel-variant:lob_book=warp");
    assertThat(Levers.byId("kernel-variant:lob_book=thread")).isEqualTo(new KernelVariant("lob_book", "thread"));
    assertThat(Levers.byId("kernel-variant:lob_book=warp")).isEqualTo(new KernelVariant("lob_book", "warp"));
    assertThat(Levers.candidates(Contexts.process(Contexts.REAL_H200, Setup.shipped()))).isEqualTo(Levers.all());
  }

  @Test
  void theLeversApplicableToShippedHftLobAreItsHonouredOnes() {
    Set<String> ids = Levers.applicable(Contexts.hft(Setup.shipped())).stream().map(Lever::id)
        .collect(Collectors.toSet());
    assertThat(ids).contains("pinned-host-memory", "pool-allocation", "preallocate", "streams-2", "streams-4",
        "occupancy-block-size", "kernel-variant:lob_book=warp", "batch-coalesce-2", "batch-coalesce-4");
    // on one stream nothing contends with the signal stream and the L2 window has no stream of the job's own; no
    // kernel uses shared memory; the sim's AUTO already spins; a warm-up cannot change a measured block
    assertThat(ids).doesNotContain("async-copies", "graph-capture", "pool-release-threshold", "math-mode-tf32",
        "math-mode-bf16", "env-tf32-override", "power-limit-restore", "kernel-variant:lob_book=thread",
        "stream-priority", "l2-persist-window", "shared-carveout-max-l1", "sched-spin", "warmup");
  }

  @Test
  void counterfactualsMapToTheReplayTransformsTheyCorrespondTo() {
    TraceChange none = TraceChange.none();
    assertThat(Levers.byId("pinned-host-memory").counterfactual()).contains(none.with(new PinnedCopies()));
    assertThat(Levers.byId("pool-allocation").counterfactual()).contains(none.with(new PoolAllocations()));
    assertThat(Levers.byId("preallocate").counterfactual()).contains(none.with(new PoolAllocations()));
    assertThat(Levers.byId("graph-capture").counterfactual()).contains(none.with(new GraphLaunches()));
    assertThat(Levers.byId("copy-compute-overlap").counterfactual()).contains(none.with(new CopiesOnSideStream()));
    // composed onto what the base already changes
    TraceChange pinned = none.with(new PinnedCopies());
    assertThat(Levers.byId("graph-capture").counterfactual().map(pinned::and))
        .contains(none.with(new PinnedCopies()).with(new GraphLaunches()));
    Map<String, Boolean> modelled = Levers.all().stream().collect(Collectors.toMap(Lever::id,
        l -> l.counterfactual().isPresent()));
    assertThat(modelled.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey))
        .containsExactlyInAnyOrder("pinned-host-memory", "pool-allocation", "preallocate", "graph-capture",
            "copy-compute-overlap", "math-mode-tf32", "math-mode-bf16");
  }
}
