package io.gitm.workloads.kitti;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.WorkRecord;
import io.gitm.workload.ExecutionConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The work a frame declares is the detector's arithmetic, computed from the architecture. */
class KittiWorkModelTest {
  @TempDir
  Path data;

  @Test
  void theGemmsDeclareTheConvolutionsFlopsAndEveryKernelMovesBytes() {
    KittiWorkload.Params p = KittiEquivalenceTest.SMALL;
    KittiKnobsTest.Run run = KittiKnobsTest.run(data, p, ExecutionConfig.shipped());
    List<WorkRecord> work = run.trace().stream().filter(r -> r instanceof WorkRecord).map(r -> (WorkRecord) r)
        .toList();
    Grid g = p.grid();
    int h1 = (g.ny() - 1) / 2 + 1;
    int w1 = (g.nx() - 1) / 2 + 1;
    int h2 = (h1 - 1) / 2 + 1;
    int w2 = (w1 - 1) / 2 + 1;
    long c = p.channels();
    long n1 = (long) h1 * w1;
    long n2 = (long) h2 * w2;
    double convs = 2.0 * (c * c * 9 * n1 + c * c * 9 * n1 + 2 * c * c * 9 * n2 + 4 * c * c * 9 * n2)
        + 2.0 * 3 * c * KittiKernels.ANCHORS * KittiKernels.ANCHOR_CHANNELS * n1;
    double gemm = work.stream().filter(w -> !w.kernel().startsWith("kitti_")).mapToDouble(WorkRecord::flops).sum();
    assertThat(gemm).isEqualTo(convs);
    assertThat(work.stream().filter(w -> !w.kernel().startsWith("kitti_"))).hasSize(5);
    WorkRecord pointnet = work.stream().filter(w -> w.kernel().equals(KittiKernels.POINTNET)).findFirst().orElseThrow();
    assertThat(pointnet.flops()).isEqualTo((double) p.maxPillars() * c * p.maxPoints() * 33);
    assertThat(work).allSatisfy(w -> assertThat(w.bytesRead() + w.bytesWritten()).isPositive());
    assertThat(work.stream().map(WorkRecord::kernel).filter(k -> k.startsWith("kitti_")).distinct())
        .hasSize(KittiKernels.MODULE.kernels().size());
  }
}
