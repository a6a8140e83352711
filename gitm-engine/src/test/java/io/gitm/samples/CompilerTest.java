package io.gitm.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.HostMemoryKind;
import io.gitm.planner.Compiler;
import io.gitm.planner.Graph;
import io.gitm.sim.SimSpec;
import io.gitm.workload.ExecutionConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The behavioural compiler on a user's engine ({@link ScaleEngine}): its graph predicted before it runs anywhere. */
class CompilerTest {
  @TempDir
  Path data;

  @Test
  void theGraphHoldsEachIterationsCopiesAndKernelWithBoundsAndTheirDependencies() {
    Compiler.Compiled c = Compiler.predictGraph(new ScaleEngine(), ExecutionConfig.shipped(), SimSpec.preset("h200"),
        data, 4);
    Graph g = c.graph();
    assertThat(g.nodes()).filteredOn(n -> n.kind() == Graph.Kind.KERNEL).hasSize(4)
        .allSatisfy(n -> {
          assertThat(n.name()).isEqualTo("scale");
          assertThat(n.basis()).isEqualTo(Graph.Basis.MODEL);
          assertThat(n.predictedBytes()).isEqualTo(8L * (1 << 18));
          assertThat(n.lowerNs()).isPositive().isLessThanOrEqualTo(n.upperNs());
        });
    assertThat(g.nodes()).filteredOn(n -> n.kind() == Graph.Kind.COPY).hasSize(8);
    assertThat(c.dependencies()).anySatisfy(d -> assertThat(d.because()).isEqualTo(Compiler.Because.STREAM_ORDER));
    assertThat(c.dependencies()).allSatisfy(d -> assertThat(g.nodes().get(d.from()).endNs())
        .isLessThanOrEqualTo(g.nodes().get(d.to()).startNs()));
    assertThat(c.host()).as("pageable copies and allocations block the host").anySatisfy(h -> assertThat(h.blocking())
        .isTrue());
    assertThat(c.perIterationNs()).isPositive();
  }

  @Test
  void pinnedHostMemoryIsPredictedFasterThanTheShippedPageableBuffers() {
    long shipped = Compiler.predictGraph(new ScaleEngine(), ExecutionConfig.shipped(), SimSpec.preset("h200"), data, 4)
        .perIterationNs();
    long pinned = Compiler.predictGraph(new ScaleEngine(), ExecutionConfig.shipped()
        .withHostMemory(HostMemoryKind.PINNED), SimSpec.preset("h200"), data, 4).perIterationNs();
    assertThat(pinned).isLessThan(shipped);
  }

  @Test
  void noIterationsIsRefused() {
    assertThatThrownBy(() -> Compiler.predictGraph(new ScaleEngine(), ExecutionConfig.shipped(),
        SimSpec.preset("h200"), data, 0)).hasMessage("iterations must be 1 or more, got 0");
  }
}
