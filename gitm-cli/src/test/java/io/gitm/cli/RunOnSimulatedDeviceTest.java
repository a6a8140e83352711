package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.store.Journal;
import io.gitm.tracer.TraceSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gitm run} end to end on the simulated device: what a user without a GPU gets. */
class RunOnSimulatedDeviceTest {
  @TempDir
  Path scratch;

  @Test
  void profilesHftLobAndWritesARunFolderLabelledSimulated() throws Exception {
    CliResult r = SteppedRuns.run("run", "--workload", "hft-lob", "--budget", "30s", "--target", "15%", "--device",
        "sim", "--max-iterations", "6", "--faults", "allocator-churn", "--levers", "pinned-host-memory",
        "--scratch", scratch.toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    var doc = Json.MAPPER.readTree(r.out());
    assertThat(doc.get("device").get("kind").asString()).isEqualTo("simulated");
    assertThat(doc.get("status").asString()).isIn("TARGET_REACHED", "TARGET_MISSED", "TARGET_NOT_REACHABLE");
    assertThat(doc.get("baseline").get("iterations").asInt()).isEqualTo(6);
    assertThat(doc.get("baseline").get("throughput").asDouble()).isPositive();
    // the answer names the output by its digest; its values (a workload's whole output) stay in baseline.json
    assertThat(doc.get("baseline").get("output").get("sha256").asString()).hasSize(64);
    assertThat(doc.get("baseline").get("output").get("valueCount").asInt()).isPositive();
    assertThat(doc.get("baseline").get("output").has("values")).isFalse();

    Path run = Path.of(doc.get("folder").asString());
    assertThat(run).startsWith(scratch);
    for (String f : List.of("run.json", "journal.jsonl", "trace.gtrace", "baseline.json", "report.md",
        "ground-truth.json")) {
      assertThat(run.resolve(f)).isRegularFile();
    }
    assertThat(Files.readString(run.resolve("report.md"))).contains("Simulated device");
    assertThat(Files.readString(run.resolve("ground-truth.json"))).contains("allocator-churn");
    assertThat(Journal.read(run.resolve("journal.jsonl")).entries()).extracting(Journal.Entry::type)
        .startsWith("start", "phase-start", "phase-end").endsWith("end");
    TraceSummary t = TraceSummary.of(run.resolve("trace.gtrace"), 3);
    assertThat(t.recordCounts().get("kernel")).isEqualTo(6L * 8);
    assertThat(t.recordCounts().get("marker")).isEqualTo(6L);
    assertThat(t.recordCounts().get("state")).isGreaterThanOrEqualTo(2L);
    assertThat(t.meta().kind()).isEqualTo(io.gitm.trace.DeviceKind.SIMULATED);
    try (var s = Files.list(run)) {
      assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void unknownFaultIsAOneLineUsageError() {
    CliResult r = CliResult.run("run", "--workload", "hft-lob", "--budget", "2m", "--target", "15%", "--device", "sim",
        "--faults", "thermo", "--scratch", scratch.toString());
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("thermo");
  }

  @Test
  void unknownDeviceIsAUsageErrorListingTheBackends() {
    CliResult r = CliResult.run("run", "--workload", "hft-lob", "--budget", "2m", "--target", "15%", "--device", "tpu",
        "--scratch", scratch.toString());
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("unknown device 'tpu'").contains("sim");
  }

  @Test
  void doctorPassesWithTheSimulatedDeviceAndNamesItsChoice() throws Exception {
    CliResult r = CliResult.run("doctor", "--json", "--scratch", scratch.toString());
    var doc = Json.MAPPER.readTree(r.out());
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(doc.get("ok").asBoolean()).isTrue();
    assertThat(doc.get("autoDevice").asString()).isIn("sim", "nvidia");
  }

  @Test
  void doctorReportsForeignAndInterruptedFilesInTheStoreWithoutDeletingThem() throws Exception {
    Files.createDirectories(scratch.resolve("runs"));
    Path foreign = Files.writeString(scratch.resolve("notes.txt"), "mine");
    Path leftover = Files.writeString(scratch.resolve("runs").resolve(".x.json.1.tmp"), "half");
    CliResult r = CliResult.run("doctor", "--scratch", scratch.toString());
    assertThat(r.out()).contains("store contents").contains("2 finding(s)").contains("notes.txt")
        .contains(".x.json.1.tmp");
    assertThat(r.code()).as("findings do not stop gitm from running").isZero();
    assertThat(foreign).exists();
    assertThat(leftover).exists();
  }

  @Test
  void doctorFailsWhenTheScratchFolderCannotBeCreated() throws Exception {
    Path file = Files.writeString(scratch.resolve("a-file"), "x");
    CliResult r = CliResult.run("doctor", "--scratch", file.resolve("sub").toString());
    assertThat(r.code()).isEqualTo(Main.FAILURE);
    assertThat(r.out()).contains("scratch folder").contains("FAILED");
  }

  @Test
  void calibrateOnTheSimulatedDeviceWritesASpecKeyedByDevice() throws Exception {
    Path out = scratch.resolve("spec.json");
    CliResult r = CliResult.run("calibrate", "--device", "sim", "-o", out.toString(), "--scratch", scratch.toString());
    assertThat(r.code()).as(r.err()).isZero();
    var spec = Json.MAPPER.readTree(Files.readString(out)).get("spec");
    assertThat(spec.get("deviceName").asString()).contains("Simulated");
    assertThat(spec.get("memoryBandwidth").asDouble()).isGreaterThan(1e12);
    assertThat(r.out()).contains("[simulated]");
  }
}
