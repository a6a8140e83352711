package io.gitm.analysis.critical;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectivesTest {
  @TempDir
  Path tmp;

  private static final Collectives.Group TP = new Collectives.Group("3", "tp", "[0, 1]", 2);

  private static CollectiveRecord host(String name, long ext, long start, long end) {
    return new CollectiveRecord(name, "BFloat16", 1_048_576, 2_097_152, 2, "3", "tp", "[0, 1]", -1, 11, ext, 0, start,
        end);
  }

  private static CollectiveRecord onKernel(String name, long ext, long corr, long start, long end) {
    return new CollectiveRecord(name, "BFloat16", 1_048_576, 2_097_152, 2, "3", "tp", "[0, 1]", 0, -1, ext, corr,
        start, end);
  }

  private static KernelRecord kernel(String name, long corr, long start, long end) {
    return new KernelRecord(name, 0, 20, corr, start, end, null, null, -1, -1, -1);
  }

  /**
   * An all_reduce whose kernel carries its metadata (linked by External id), an all_gather whose kernel does not
   * (linked by the launch made within it on its thread), and a reduce_scatter seen only on its kernel.
   */
  @Test
  void eachCollectiveGetsItsCallsElementsBytesProcessGroupAndTheKernelItRanAs() {
    List<TraceRecord> r = List.of(
        host("allreduce", 40, 100, 120), onKernel("allreduce", 40, 77, 130, 170),
        kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 77, 130, 170),
        host("_allgather_base", 50, 200, 230), new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 11, 88, 205, 215),
        kernel("ncclDevKernel_AllGather_RING_LL", 88, 220, 300),
        onKernel("reduce_scatter", 60, 99, 400, 450), kernel("ncclKernel_ReduceScatter_Sum_bf16", 99, 400, 450));

    assertThat(Collectives.of(r)).containsExactly(
        new Collectives.Collective("_allgather_base", TP, "BFloat16", 1, 1_048_576, 2_097_152, 2_097_152, 4_194_304,
            30, "ncclDevKernel_AllGather_RING_LL", 1, 80),
        new Collectives.Collective("reduce_scatter", TP, "BFloat16", 1, 1_048_576, 2_097_152, 2_097_152, 4_194_304,
            0, "ncclKernel_ReduceScatter_Sum_bf16", 1, 50),
        new Collectives.Collective("allreduce", TP, "BFloat16", 1, 1_048_576, 2_097_152, 2_097_152, 4_194_304, 20,
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 1, 40));
  }

  /**
   * The one-rank NCCL trace: per step an all_reduce, a broadcast and an all_gather of 4 Mi floats; 5 whole steps and
   * the all_reduce of a partial sixth. With one rank NCCL ran no kernel. Sums computed with Python's gzip, json and
   * decimal from the file ({@code dur × 1000} ns per {@code record_param_comms}).
   */
  @Test
  void theOneRankNcclTraceHasItsThreeCollectivesWithoutKernels() throws Exception {
    List<Collectives.Collective> cs = Collectives.of(RealTraces.load("nccl-one-rank", tmp));

    Collectives.Group pg = new Collectives.Group("0", "default_pg", "[0]", 1);
    assertThat(cs).containsExactly(
        new Collectives.Collective("allreduce", pg, "Float", 6, 25_165_824, 25_165_824, 100_663_296, 100_663_296,
            562_474, "", 0, 0),
        new Collectives.Collective("_allgather_base", pg, "Float", 5, 20_971_520, 20_971_520, 83_886_080, 83_886_080,
            394_703, "", 0, 0),
        new Collectives.Collective("broadcast", pg, "Float", 5, 20_971_520, 20_971_520, 83_886_080, 83_886_080,
            257_738, "", 0, 0));
  }

  @Test
  void elementSizesFollowPytorchsDtypeNames() {
    assertThat(Collectives.elementBytes("Float")).isEqualTo(4);
    assertThat(Collectives.elementBytes("BFloat16")).isEqualTo(2);
    assertThat(Collectives.elementBytes("Float8_e4m3fn")).isEqualTo(1);
    assertThat(Collectives.elementBytes("Long")).isEqualTo(8);
    assertThat(Collectives.elementBytes("")).isEqualTo(-1);
  }
}
