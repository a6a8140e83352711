package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.tracer.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code gitm analyze} on bad input: each case gives an explicit one-line diagnostic (text and JSON) and the documented
 * exit status (0 when the trace could be read, 1 when it could not), never a stack trace or a silent zero.
 */
class AnalyzeCommandTest {
  @TempDir
  Path dir;

  /** A Kineto trace of the given device ids and events (each a JSON object without its braces). */
  private Path kineto(String name, List<Integer> devices, List<String> events) throws Exception {
    StringBuilder b = new StringBuilder("{\"schemaVersion\": 1, \"deviceProperties\": [");
    for (int i = 0; i < devices.size(); i++) {
      b.append(i == 0 ? "" : ", ").append("{\"id\": ").append(devices.get(i)).append(", \"name\": \"NVIDIA H200\"}");
    }
    b.append("], \"baseTimeNanoseconds\": 1764457200000000000, \"traceEvents\": [");
    for (int i = 0; i < events.size(); i++) {
      b.append(i == 0 ? "" : ",\n").append('{').append(events.get(i)).append('}');
    }
    b.append("]}");
    Path p = dir.resolve(name);
    Files.writeString(p, b);
    return p;
  }

  /** A kernel event on device 0 at {@code ts} µs lasting {@code dur} µs. */
  private static String kernel(String name, int stream, int corr, double ts, double dur) {
    return "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name + "\", \"pid\": 0, \"tid\": " + stream
        + ", \"ts\": " + ts + ", \"dur\": " + dur + ", \"args\": {\"device\": 0, \"stream\": " + stream
        + ", \"correlation\": " + corr + ", \"grid\": [64, 1, 1], \"block\": [256, 1, 1]}";
  }

  private static String launch(int corr, double ts) {
    return "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": "
        + ts + ", \"dur\": 3.0, \"args\": {\"correlation\": " + corr + "}";
  }

  private static final String K = "vectorized_elementwise_kernel<4, add>";

  /** Ten launches of a 100 µs kernel, 110 µs apart, on stream 7. */
  private static List<String> healthy() {
    List<String> e = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      e.add(launch(i + 1, i * 110.0));
      e.add(kernel(K, 7, i + 1, i * 110.0 + 5, 100.0));
    }
    return e;
  }

  private static CliResult analyze(Path trace, String... more) {
    List<String> args = new ArrayList<>(List.of("analyze", trace.toString(), "--scratch",
        trace.getParent().resolve("store").toString()));
    args.addAll(List.of(more));
    return CliResult.run(args.toArray(String[]::new));
  }

  /** What every case must hold: no stack trace, no exception's class name, in either stream. */
  private static void noStackTrace(CliResult r) {
    assertThat(r.out() + r.err()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  private static List<String> notes(CliResult r) {
    return r.out().lines().filter(l -> l.startsWith("note ")).map(l -> l.substring(5).strip()).toList();
  }

  @Test
  void aKinetoTraceWithoutDeviceOperationsFailsWithOneLineSayingWhatItHoldsAndWhy() throws Exception {
    Path trace = kineto("none.json", List.of(0), List.of(launch(1, 0.0)));
    CliResult r = analyze(trace);
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err().strip()).isEqualTo("gitm: error: " + trace + ": no device operations to import (no kernel,"
        + " memcpy or memset event with a timestamp): the profile recorded no CUDA device activity (a CPU-only"
        + " profile, or ProfilerActivity.CUDA was not among the activities); the trace holds cat cuda_runtime 1");
    assertThat(r.out()).isEmpty();
    noStackTrace(r);
  }

  @Test
  void aListedDeviceWithoutRecordsIsNamed() throws Exception {
    CliResult r = analyze(kineto("two.json", List.of(0, 1), healthy()), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = Json.MAPPER.readTree(r.out());
    List<String> d = new ArrayList<>();
    j.get("diagnostics").forEach(x -> d.add(x.asString()));
    assertThat(d).anyMatch(x -> x.startsWith("the trace's meta lists device(s) [1] that no record names"));
    // the idle breakdown per stream and per device comes with it
    assertThat(j.get("idle").get("streams").get(0).get("stream").asInt()).isEqualTo(7);
    assertThat(j.get("idle").get("devices").get(0).get("stream").asInt()).isEqualTo(-1);
    noStackTrace(r);
  }

  @Test
  void kernelClocksGoingBackwardsOnAStreamAreNamedWithTheOffendingRecords() throws Exception {
    List<String> e = healthy();
    // the fourth kernel is stamped 50 µs before the third one ends: one stream cannot run both
    e.set(7, kernel(K, 7, 4, 2 * 110.0 + 55, 100.0));
    CliResult r = analyze(kineto("back.json", List.of(0), e));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(notes(r)).anyMatch(n -> n.startsWith("kernel timestamps on device 0 stream 7 go backwards: 1 kernel(s)"
        + " start before the previous one on the stream ended (by up to 50000 ns; first: '" + K + "' corr 4 at"
        + " 1764457200000275000 ns overlaps '" + K + "' corr 3 at "));
    noStackTrace(r);
  }

  @Test
  void notANumberInTelemetryIsSaidPerField() throws Exception {
    Path p = dir.resolve("nan.gtrace");
    TraceMeta meta = new TraceMeta("test", ClockDomain.HOST_MONOTONIC,
        List.of(new TraceDevice(0, "NVIDIA H200", "", DeviceKind.REAL)), Map.of());
    try (TraceWriter w = TraceWriter.create(p, meta)) {
      for (int i = 0; i < 4; i++) {
        long t = i * 200_000L;
        w.write(new KernelRecord("k", 0, 7, i + 1, t, t + 100_000, new Dim3(64, 1, 1), new Dim3(256, 1, 1), 32, 0, 0));
        w.write(StateSample.of(0, t, Map.of(StateField.SM_CLOCK, Double.NaN, StateField.POWER, 300.0,
            StateField.TEMPERATURE, 50.0, StateField.CLOCK_EVENT_REASONS, 0.0)));
      }
    }
    CliResult r = analyze(p);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(notes(r)).contains("SM_CLOCK is missing (not read, or NaN) in 4 of 4 state samples: causes that need it"
        + " cannot be judged");
    noStackTrace(r);
  }

  @Test
  void negativeDurationsFromTheImporterBecomeDiagnosticsNotSilentZeros() throws Exception {
    List<String> e = healthy();
    e.set(1, kernel(K, 7, 1, 5.0, -100.0));
    e.set(3, kernel(K, 7, 2, 115.0, -100.0));
    Path p = kineto("neg.json", List.of(0), e);
    CliResult text = analyze(p);
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(notes(text)).contains("2 kernel event(s) have a negative dur (they end before they start): imported"
        + " with duration 0").anyMatch(n -> n.startsWith("2 kernel(s) last 0 ns (first: '" + K + "' corr 1"));
    noStackTrace(text);
    CliResult json = analyze(p, "--json");
    assertThat(json.code()).as(json.err()).isZero();
    assertThat(Json.MAPPER.readTree(json.out()).get("diagnostics").toString()).contains("negative dur");
  }

  @Test
  void aTruncatedJsonTraceFailsWithOneLineAndExitOne() throws Exception {
    Path p = kineto("cut.json", List.of(0), healthy());
    String whole = Files.readString(p);
    Files.writeString(p, whole.substring(0, whole.length() / 2));
    CliResult r = analyze(p);
    assertThat(r.code()).isEqualTo(Main.FAILURE);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines().toList()).hasSize(1);
    assertThat(r.errorLine()).startsWith("gitm: error: " + p + ": ").contains("line");
    noStackTrace(r);
  }

  @Test
  void kernelsThatDeclareNoWorkArePredictedFromTheirOwnHistoryOrTheirPeersAndSaySo() throws Exception {
    List<String> e = healthy();
    // one execution of a kernel of the same family and grid: too little history of its own
    e.add(launch(11, 1200.0));
    String peer = "vectorized_elementwise_kernel<2, mul>";
    e.add(kernel(peer, 7, 11, 1205.0, 100.0));
    CliResult r = analyze(kineto("peers.json", List.of(0), e), "--json", "--nodes");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = Json.MAPPER.readTree(r.out());
    JsonNode last = j.get("graphNodes").get(10);
    assertThat(last.get("name").asString()).isEqualTo("vectorized_elementwise_kernel<2, mul>");
    assertThat(last.get("basis").asString()).isEqualTo("PEERS");
    assertThat(last.get("peers").asString()).startsWith("family 'vectorized_elementwise_kernel' grid 64x1x1");
    assertThat(j.get("modelNodes").asInt()).isZero();
    Map<String, String> basis = new java.util.HashMap<>();
    j.get("predictions").forEach(x -> basis.put(x.get("subject").asString(), x.get("basis").asString()));
    assertThat(basis).containsEntry(K, "EMPIRICAL").containsEntry(peer, "PEERS");
    CliResult text = analyze(kineto("peers2.json", List.of(0), e));
    assertThat(text.out()).contains("peers     '" + peer + "' (1×) from family 'vectorized_elementwise_kernel' grid"
        + " 64x1x1, 11 executions of 2 kernels")
        .containsPattern("basis +empirical, from its own history: +10 kernels");
  }

  @Test
  void ncuBytesFarAboveTheDeclaredOnesBreakTheMemoryTrafficInvariantOfARealRunsTrace() throws Exception {
    CliResult run = SteppedRuns.run("run", "--workload", "hft-lob", "--budget", "30s", "--target", "15%", "--device",
        "sim", "--max-iterations", "6", "--levers", "pinned-host-memory", "--scratch", dir.toString(), "--json");
    assertThat(run.code()).as(run.err()).isZero();
    Path folder = Path.of(Json.MAPPER.readTree(run.out()).get("folder").asString());
    // lob_book's measured DRAM bytes at 10x what each launch declares, written as ncu --csv writes them
    StringBuilder csv = new StringBuilder("==PROF== Connected to process 1\n\"ID\",\"Kernel Name\",\"Grid Size\","
        + "\"Block Size\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n");
    for (int i = 0; i < 4; i++) {
      csv.append("\"").append(i).append("\",\"lob_book\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"dram__bytes_read.sum\","
          + "\"Gbyte\",\"40\"\n");
      csv.append("\"").append(i).append("\",\"lob_book\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"dram__bytes_write.sum\","
          + "\"Gbyte\",\"40\"\n");
    }
    Path ncu = Files.writeString(dir.resolve("ncu.csv"), csv.toString());
    CliResult judged = CliResult.run("analyze", folder.toString(), "--ncu", ncu.toString(), "--json", "--scratch",
        dir.toString());
    assertThat(judged.code()).as(judged.err()).isZero();
    tools.jackson.databind.JsonNode d = Json.MAPPER.readTree(judged.out());
    assertThat(d.get("diagnostics").toString()).contains("ncu: 4 profiled executions of 1 kernels")
        .contains("by name alone");
    assertThat(d.get("violations").toString()).contains("MEMORY_TRAFFIC").contains("lob_book");
    CliResult missing = CliResult.run("analyze", folder.toString(), "--ncu", dir.resolve("none.csv").toString(),
        "--scratch", dir.toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.errorLine()).endsWith("none.csv: no such file");
    Path notCsv = Files.writeString(dir.resolve("not.csv"), "hello\n");
    CliResult bad = CliResult.run("analyze", folder.toString(), "--ncu", notCsv.toString(), "--scratch",
        dir.toString());
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.errorLine()).contains("no ncu --csv header");
  }

  /** Ten launches of a 100 µs kernel every {@code period} µs on stream 7, each kernel 2 µs after its launch. */
  private static List<String> every(double period, String name) {
    List<String> e = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      e.add(launch(i + 1, i * period));
      e.add(kernel(name, 7, i + 1, i * period + 2, 100.0));
    }
    return e;
  }

  @Test
  void aBaselineOfTheSameJobRanksWhatTheRunAddedAfterTheAnalysisAndInJson() throws Exception {
    // back to back in the baseline; in the run the host launches every 200 µs, so the device idles 100 µs a kernel
    Path base = kineto("base.json", List.of(0), every(102.0, K));
    Path slow = kineto("slow.json", List.of(0), every(200.0, K));
    CliResult text = analyze(slow, "--baseline", base.toString());
    assertThat(text.code()).as(text.err()).isZero();
    String out = text.out();
    assertThat(out.indexOf("differential against " + base)).isGreaterThan(out.indexOf("hypotheses ("));
    assertThat(out).contains("note lost time per kernel executed (baseline 10 kernels, run 10; neither trace marks"
        + " iterations)").containsPattern("changes \\(1 new or grown").containsPattern(
            "  1\\. launch-bound host +NEW +\\+[0-9.]+ µs per kernel");
    noStackTrace(text);
    CliResult json = analyze(slow, "--baseline", base.toString(), "--json");
    assertThat(json.code()).as(json.err()).isZero();
    JsonNode d = Json.MAPPER.readTree(json.out()).get("differential");
    assertThat(d.get("baseline").asString()).isEqualTo(base.toString());
    assertThat(d.get("unit").asString()).isEqualTo("KERNEL");
    assertThat(d.get("timeChange").asDouble()).isPositive();
    JsonNode first = d.get("changes").get(0);
    assertThat(first.get("cause").asString()).isEqualTo("LAUNCH_BOUND_HOST");
    assertThat(first.get("status").asString()).isEqualTo("NEW");
    assertThat(first.get("addedLow").asDouble()).isPositive();
    assertThat(d.get("addedByChanges").asDouble()).isEqualTo(first.get("addedShare").asDouble());
    CliResult without = analyze(slow, "--json");
    assertThat(Json.MAPPER.readTree(without.out()).has("differential")).isFalse();
  }

  @Test
  void aBaselineAlsoComparesEveryBreakdownWithTheGrownLostTimeRanked() throws Exception {
    // the run's host launches each kernel 100 µs after the previous one ended: 9 gaps of host wait
    Path base = kineto("base.json", List.of(0), every(102.0, K));
    Path slow = kineto("slow.json", List.of(0), every(200.0, K));
    CliResult text = analyze(slow, "--baseline", base.toString());
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out()).contains("window    all (the default: the trace has no ProfilerStep annotations): the"
        + " whole trace", "breakdowns against the baseline (per window; lost time that grew, most first)",
        "  1. device 0 stream 7 host wait              +0.900 ms (0.000 → 0.900 ms)",
        "  2. idle                                     +0.882 ms (0.018 → 0.900 ms)");
    CliResult json = analyze(slow, "--baseline", base.toString(), "--json");
    JsonNode d = Json.MAPPER.readTree(json.out()).get("differential").get("breakdowns");
    assertThat(d.get("unit").asString()).isEqualTo("window");
    assertThat(d.get("lost").get(0).get("figure").asString()).isEqualTo("device 0 stream 7 host wait");
    assertThat(d.get("lost").get(0).get("change").asDouble()).isEqualTo(900_000.0);
    assertThat(d.get("figures").size()).isGreaterThan(d.get("lost").size());
  }

  @Test
  void aWindowThatIsNotOneIsBadUsageWithOneLine() throws Exception {
    Path run = kineto("run.json", List.of(0), healthy());
    CliResult r = analyze(run, "--window", "1:2");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.errorLine()).isEqualTo("gitm: --window 1:2: the trace has no ProfilerStep annotations to number;"
        + " give times with a unit (e.g. 0ms:20ms) (in " + run + ")");
    CliResult bad = analyze(run, "--window", "soon");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.errorLine()).isEqualTo("gitm: --window soon: expected steps, all or FROM:TO (in " + run + ")");
    noStackTrace(r);
    noStackTrace(bad);
  }

  @Test
  void aBaselineThatCannotBeFoundOrReadFailsWithOneLine() throws Exception {
    Path run = kineto("run.json", List.of(0), healthy());
    CliResult missing = analyze(run, "--baseline", dir.resolve("nope.gtrace").toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.errorLine()).isEqualTo("gitm: --baseline: no such run or trace: "
        + dir.resolve("nope.gtrace"));
    Path cut = kineto("cut.json", List.of(0), healthy());
    String whole = Files.readString(cut);
    Files.writeString(cut, whole.substring(0, whole.length() / 2));
    CliResult truncated = analyze(run, "--baseline", cut.toString());
    assertThat(truncated.code()).isEqualTo(Main.FAILURE);
    assertThat(truncated.out()).isEmpty();
    assertThat(truncated.err().lines().toList()).hasSize(1);
    assertThat(truncated.errorLine()).startsWith("gitm: error: --baseline: " + cut + ": ");
    noStackTrace(missing);
    noStackTrace(truncated);
    Path none = kineto("none.json", List.of(0), List.of(launch(1, 0.0)));
    CliResult unimportable = analyze(run, "--baseline", none.toString());
    assertThat(unimportable.code()).isEqualTo(Main.FAILURE);
    assertThat(unimportable.err().lines().toList()).hasSize(1);
    assertThat(unimportable.errorLine()).startsWith("gitm: error: --baseline: " + none + ": no device operations to"
        + " import").endsWith("the trace holds cat cuda_runtime 1");
    Path hostOnly = dir.resolve("host-only.gtrace");
    try (TraceWriter w = TraceWriter.create(hostOnly, new TraceMeta("test", ClockDomain.HOST_MONOTONIC,
        List.of(new TraceDevice(0, "NVIDIA H200", "", DeviceKind.REAL)), Map.of()))) {
      w.write(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 1, 1, 0, 3_000));
    }
    CliResult empty = analyze(run, "--baseline", hostOnly.toString());
    assertThat(empty.code()).isEqualTo(Main.FAILURE);
    assertThat(empty.err().lines().toList()).hasSize(1);
    assertThat(empty.errorLine()).startsWith("gitm: error: --baseline: ")
        .endsWith("host-only.gtrace: the baseline has no device operation: nothing to compare");
    noStackTrace(unimportable);
    noStackTrace(empty);
  }

  @Test
  void aBaselineOfAnotherJobIsRefusedWithOneLine() throws Exception {
    Path run = kineto("run.json", List.of(0), healthy());
    Path other = kineto("other.json", List.of(0), every(110.0, "lob_book"));
    CliResult r = analyze(run, "--baseline", other.toString(), "--json");
    assertThat(r.code()).isEqualTo(Main.FAILURE);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines().toList()).hasSize(1);
    assertThat(r.errorLine()).isEqualTo("gitm: error: --baseline: " + other + ": the runs share no kernel name"
        + " (baseline: 'lob_book'; run: '" + K + "'): not the same job, nothing to compare");
    noStackTrace(r);
  }
}
