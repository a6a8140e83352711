package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.TraceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host operations and collective metadata of Kineto traces: {@code cpu_op} events, a PyTorch 1.x step written as a
 * {@code cpu_op}, {@code record_param_comms} and the NCCL kernel args PyTorch 2.x writes (Kineto's
 * {@code output_json.cpp}: the collective's name and dtype quoted, the element counts and group size as numbers, the
 * process group's name, description and ranks quoted).
 */
class KinetoHostOpsTest {
  @TempDir
  Path tmp;

  /** A kernel far after the host events, since a trace without device operations is refused. */
  private static final String KERNEL = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0,"
      + " \"tid\": 7, \"ts\": 900, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}";

  private List<TraceRecord> importJson(String events) throws Exception {
    Path json = tmp.resolve("t.json");
    Files.writeString(json, "{\"traceEvents\": [" + events + ", " + KERNEL + "]}");
    Path gtrace = tmp.resolve("t.gtrace");
    KinetoImporter.importTrace(json, gtrace);
    return Samples.readAll(gtrace);
  }

  @Test
  void aCpuOpIsAHostOperationWithItsThreadAndExternalId() throws Exception {
    List<TraceRecord> r = importJson("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 9,"
        + " \"tid\": 11, \"ts\": 10.5, \"dur\": 2.25, \"args\": {\"External id\": 3587, \"Ev Idx\": 3}}");

    assertThat(r).filteredOn(rec -> !(rec instanceof KernelRecord))
        .containsExactly(new HostOpRecord("aten::mm", 11, 3587, 10_500, 12_750));
  }

  @Test
  void aProfilerStepWrittenAsACpuOpIsAlsoAStepMarker() throws Exception {
    List<TraceRecord> r = importJson("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#7\","
        + " \"tid\": 11, \"ts\": 100, \"dur\": 50, \"args\": {\"External id\": 5}}");

    assertThat(r).filteredOn(rec -> !(rec instanceof KernelRecord))
        .containsExactly(new HostOpRecord("ProfilerStep#7", 11, 5, 100_000, 150_000),
        new MarkerRecord("ProfilerStep#7", 11, 100_000, 150_000));
  }

  @Test
  void recordParamCommsAndTheNcclKernelItLaunchedCarryTheCollectivesMetadata() throws Exception {
    String comms = "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"tid\": 11, \"ts\": 100,"
        + " \"dur\": 20, \"args\": {\"External id\": 40, \"Collective name\": \"allreduce\", \"dtype\": \"BFloat16\","
        + " \"In msg nelems\": 1048576, \"Out msg nelems\": 1048576, \"Group size\": 8, \"Process Group Name\": \"3\","
        + " \"Process Group Description\": \"tp\", \"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7]\"}}";
    String kernel = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_bf16_RING_LL\","
        + " \"pid\": 0, \"tid\": 20, \"ts\": 130, \"dur\": 40, \"args\": {\"External id\": 40, \"device\": 0,"
        + " \"stream\": 20, \"correlation\": 77, \"Collective name\": \"allreduce\", \"In msg nelems\": 1048576,"
        + " \"Out msg nelems\": 1048576, \"Group size\": 8, \"dtype\": \"BFloat16\", \"Process Group Name\": \"3\","
        + " \"Process Group Description\": \"tp\", \"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7]\"}}";

    List<TraceRecord> r = importJson(comms + ", " + kernel);

    assertThat(r).filteredOn(CollectiveRecord.class::isInstance).containsExactly(
        new CollectiveRecord("allreduce", "BFloat16", 1_048_576, 1_048_576, 8, "3", "tp", "[0, 1, 2, 3, 4, 5, 6, 7]",
            -1, 11, 40, 0, 100_000, 120_000),
        new CollectiveRecord("allreduce", "BFloat16", 1_048_576, 1_048_576, 8, "3", "tp", "[0, 1, 2, 3, 4, 5, 6, 7]",
            0, -1, 40, 77, 130_000, 170_000));
    assertThat(r).filteredOn(HostOpRecord.class::isInstance).hasSize(1);
    assertThat(r).filteredOn(KernelRecord.class::isInstance).hasSize(2);
  }

  @Test
  void theNcclTraceOfOneRankHasThreeCollectivesPerStepAsHostOperations() throws Exception {
    Path gtrace = tmp.resolve("nccl.gtrace");
    KinetoImporter.Result res = KinetoImporter.importTrace(
        RealTraceFixturesTest.resource("kineto/nccl-one-rank.pt.trace.json.gz"), gtrace);
    List<TraceRecord> all = Samples.readAll(gtrace);

    // counted with Python's gzip and json: 87 cpu_op events, 16 of them record_param_comms (5 whole steps of three
    // collectives, and the all_reduce of the partial sixth)
    assertThat(res.records()).containsEntry("hostop", 87L).containsEntry("collective", 16L);
    assertThat(res.ignored()).doesNotContainKey("cat cpu_op");
    assertThat(all).filteredOn(CollectiveRecord.class::isInstance).map(r -> ((CollectiveRecord) r).collective())
        .containsOnly("allreduce", "broadcast", "_allgather_base").hasSize(16);
    // ts 5326464203753.665 µs and dur 117.444 µs after baseTimeNanoseconds 1790857026000000000
    assertThat(all).filteredOn(CollectiveRecord.class::isInstance).first().isEqualTo(new CollectiveRecord(
        "allreduce", "Float", 4_194_304, 4_194_304, 1, "0", "default_pg", "[0]", -1, 1550, 3589, 0,
        1_796_183_490_203_753_665L, 1_796_183_490_203_871_109L));
  }
}
