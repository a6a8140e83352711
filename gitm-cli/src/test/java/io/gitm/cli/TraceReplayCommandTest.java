package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceMeta;
import io.gitm.tracer.TraceReader;
import io.gitm.tracer.TraceSummary;
import io.gitm.tracer.TraceWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceReplayCommandTest {
  @TempDir
  static Path scratch;

  /** The trace of a short gitm run of hft-lob as shipped (pageable copies, per-batch allocations) on the sim. */
  static Path trace;

  @BeforeAll
  static void recordATrace() throws Exception {
    CliResult r = SteppedRuns.run("run", "--workload", "hft-lob", "--budget", "30s", "--target", "15%", "--device",
        "sim", "--max-iterations", "8", "--levers", "pinned-host-memory", "--scratch", scratch.toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    trace = Path.of(Json.MAPPER.readTree(r.out()).get("folder").asString()).resolve("trace.gtrace");
    assertThat(trace).isRegularFile();
  }

  static JsonNode json(CliResult r) throws Exception {
    assertThat(r.code()).as(r.err()).isZero();
    return Json.MAPPER.readTree(r.out());
  }

  @Test
  void aTraceReplayedAsItWasLandsNearItsObservedTime() throws Exception {
    JsonNode d = json(CliResult.run("trace", "replay", trace.toString(), "--json"));
    assertThat(d.get("traceDevice").asString()).isEqualTo("simulated");
    assertThat(d.get("declaredWorkRecords").asLong()).isPositive();
    assertThat(d.get("observedNs").asLong()).isPositive();
    assertThat(Math.abs(d.get("modelError").asDouble())).as("the sim replaying its own trace").isLessThan(0.25);
    assertThat(d.get("changedNs").asLong()).isEqualTo(d.get("unchangedNs").asLong());
    CliResult text = CliResult.run("trace", "replay", trace.toString());
    assertThat(text.out()).contains("replayed as it was").contains("the model's error on this trace")
        .doesNotContain("speed");
  }

  @Test
  void pinnedCopiesShortenAJobThatCopiesFromPageableMemory() throws Exception {
    JsonNode d = json(CliResult.run("trace", "replay", trace.toString(), "--change", "pinned-copies", "--json"));
    assertThat(d.get("timeChange").asDouble()).isNegative();
    JsonNode slower = json(CliResult.run("trace", "replay", trace.toString(), "--faults", "clock-drop", "--json"));
    assertThat(slower.get("timeChange").asDouble()).as("a clock drop on the replaying device").isPositive();
  }

  @Test
  void withSecondsTheProgramRunsUntilThatMuchSimulatedTimeAndTheSimulatorsSpeedIsReported() throws Exception {
    JsonNode d = json(CliResult.run("trace", "replay", trace.toString(), "--seconds", "2", "--json"));
    assertThat(d.get("simulatedSeconds").asDouble()).isGreaterThanOrEqualTo(2);
    assertThat(d.get("repetitions").asInt()).as("the trace covers well under 2 s").isGreaterThan(1);
    assertThat(d.get("records").asLong()).isPositive();
    assertThat(d.get("simulatedSecondsPerWallSecond").asDouble()).isPositive();
    assertThat(CliResult.run("trace", "replay", trace.toString(), "--seconds", "1").out())
        .contains("simulated s per wall s");
  }

  @Test
  void theFirstReplayCanBeWrittenAsATraceLabelledSimulated() throws Exception {
    Path out = scratch.resolve("replayed.gtrace");
    json(CliResult.run("trace", "replay", trace.toString(), "--change", "pool-allocations,graph-launches", "-o",
        out.toString(), "--json"));
    try (TraceReader r = TraceReader.open(out)) {
      assertThat(r.meta().kind()).isEqualTo(DeviceKind.SIMULATED);
      assertThat(r.meta().attributes()).containsEntry("changes", "pool-allocations,graph-launches");
    }
    assertThat(TraceSummary.of(out, 3).recordCounts().get("kernel")).isPositive();
  }

  @Test
  void badInputGetsOneLineAndANonZeroExit() throws Exception {
    CliResult unknown = CliResult.run("trace", "replay", trace.toString(), "--change", "faster");
    assertThat(unknown.code()).isEqualTo(Main.USAGE);
    assertThat(unknown.err()).contains("unknown --change 'faster'").contains("pinned-copies");
    CliResult gaps = CliResult.run("trace", "replay", trace.toString(), "--change", "host-gaps=-1");
    assertThat(gaps.code()).isEqualTo(Main.USAGE);
    assertThat(gaps.err()).contains("host-gaps takes a factor >= 0");
    assertThat(CliResult.run("trace", "replay", trace.toString(), "--preset", "b200").err())
        .contains("unknown sim preset 'b200'");
    assertThat(CliResult.run("trace", "replay", trace.toString(), "--seconds", "-1").code()).isEqualTo(Main.USAGE);
    assertThat(CliResult.run("trace", "replay", scratch.resolve("none.gtrace").toString()).err())
        .contains("no such file");
    Path out = scratch.resolve("missing-folder/x.gtrace");
    assertThat(CliResult.run("trace", "replay", trace.toString(), "-o", out.toString()).err())
        .contains("the output folder does not exist");
    assertThat(out).doesNotExist();
    // a trace without host API calls: nothing to rebuild the host program from
    Path kernelsOnly = scratch.resolve("kernels-only.gtrace");
    try (TraceWriter w = TraceWriter.create(kernelsOnly, new TraceMeta("test", ClockDomain.SIMULATED, List.of(),
        Map.of()))) {
      w.write(new KernelRecord("k", 0, 7, 1, 100, 200, new Dim3(1, 1, 1), new Dim3(32, 1, 1), 32, 0, 0));
    }
    CliResult noCalls = CliResult.run("trace", "replay", kernelsOnly.toString());
    assertThat(noCalls.code()).isEqualTo(Main.FAILURE);
    assertThat(noCalls.err()).contains("no API call records").doesNotContain("Exception");
  }
}
