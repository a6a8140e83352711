package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.tracer.TraceReader;
import io.gitm.tracer.TraceWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class TraceCommandTest {
  @TempDir
  Path dir;

  /** The exit code and the two output streams of one CLI run. */
  record Run(int code, String out, String err) {}

  static Run gitm(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(new PrintWriter(out), new PrintWriter(err), args);
    return new Run(code, out.toString(), err.toString());
  }

  private static final String KINETO = """
      {
        "schemaVersion": 1,
        "deviceProperties": [
          {"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150110011392, "computeMajor": 9, "computeMinor": 0,
           "numSms": 132}
        ],
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": 1764457200000000000,
        "traceEvents": [
        {
          "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4821, "tid": 4821,
          "ts": 10.250, "dur": 4.100,
          "args": {"External id": 3, "cbid": 211, "correlation": 77}
        },
        {
          "ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7,
          "ts": 15.000, "dur": 120.500,
          "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 77,
                   "registers per thread": 126, "shared memory": 16384, "grid": [64, 8, 1], "block": [256, 1, 1]}
        },
        {
          "ph": "X", "cat": "kernel", "name": "elementwise_add", "pid": 0, "tid": 7,
          "ts": 140.000,
          "args": {"device": 0, "stream": 7, "correlation": 78}
        },
        {
          "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 4821, "tid": 4821, "ts": 9.000, "dur": 8.000
        }
        ],
        "traceName": "host_4821.1764457200000.pt.trace.json"
      }
      """;

  private Path kineto(String name) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, KINETO);
    return p;
  }

  private Path gtrace(String name) throws Exception {
    Path p = dir.resolve(name);
    TraceMeta meta = new TraceMeta("sim", ClockDomain.SIMULATED,
        List.of(new TraceDevice(0, "sim-h200", "", DeviceKind.SIMULATED)), Map.of());
    try (TraceWriter w = TraceWriter.create(p, meta)) {
      for (int i = 0; i < 1000; i++) {
        long t = i * 10_000L;
        w.write(new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 1, i + 1, t, t + 2_000));
        w.write(new KernelRecord(i % 3 == 0 ? "lob_update" : "feature_scan", 0, 1 + i % 2, i + 1, t + 3_000,
            t + (i % 3 == 0 ? 9_000 : 5_000), new Dim3(64, 1, 1), new Dim3(256, 1, 1), 32, 0, 0));
      }
      w.write(new CopyRecord(CopyKind.HTOD, 4 << 20, MemoryKind.PINNED, MemoryKind.DEVICE, 0, 1, 0, 0, 1_000));
      w.write(StateSample.of(0, 5_000, Map.of(StateField.SM_CLOCK, 1980.0, StateField.POWER, 150.0)));
    }
    return p;
  }

  @Test
  void importWritesATraceNextToTheInputAndReportsWhatWasMissing() throws Exception {
    Path in = kineto("host_4821.1764457200000.pt.trace.json");
    Run r = gitm("trace", "import", in.toString());

    assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
    Path out = dir.resolve("host_4821.1764457200000.gtrace");
    assertThat(out).exists();
    // the cpu_op is a host operation (without its External id)
    assertThat(r.out()).contains("imported " + in + " into " + out + ": 4 records from 4 events (api 1, hostop 1,"
            + " kernel 2)")
        .contains("clock UNIX_EPOCH; devices: 0 NVIDIA H200")
        .contains("missing fields, stored as unknown: cpu_op: args.External id 1, kernel: args.block 1, kernel:"
            + " args.grid 1, kernel: args.registers per thread 1, kernel: args.shared memory 1, kernel: dur 1")
        .doesNotContain("not imported");
    try (TraceReader reader = TraceReader.open(out)) {
      assertThat(reader.meta().source()).isEqualTo("kineto");
      assertThat(reader.read(x -> {})).isEqualTo(4);
    }
  }

  @Test
  void importWithJsonPrintsTheReportAsData() throws Exception {
    Path in = kineto("k.json");
    Path out = dir.resolve("custom name.gtrace");
    Run r = gitm("trace", "import", in.toString(), "-o", out.toString(), "--json");
    assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
    JsonNode j = Json.MAPPER.readTree(r.out());
    assertThat(j.get("records").asLong()).isEqualTo(4);
    assertThat(j.get("recordsByType").get("kernel").asLong()).isEqualTo(2);
    assertThat(j.get("missing").get("kernel: dur").asLong()).isEqualTo(1);
    assertThat(j.get("devices").get(0).get("name").asString()).isEqualTo("NVIDIA H200");
    assertThat(out).exists();
  }

  @Test
  void infoSummarizesRecordsSpanStreamsAndTopKernels() throws Exception {
    Path t = gtrace("run.gtrace");
    Run r = gitm("trace", "info", t.toString(), "--top", "2");

    assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
    assertThat(r.out()).contains("source       sim; clock SIMULATED; simulated device")
        .contains("devices      0 sim-h200 (simulated): streams 1, 2")
        .contains("records      2002: kernel 1000, copy 1, memset 0, sync 0, api 1000, overhead 0, state 1, marker 0")
        .contains("span         9.999 ms, from 0 ns to 9999000 ns")
        .contains("copies       HtoD 4.0 MiB")
        .contains("top kernels by total time:");
    List<String> lines = r.out().lines().toList();
    int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("top kernels")).findFirst().orElseThrow());
    assertThat(lines.get(header + 2)).contains("lob_update").contains("2.004 ms").contains("334");
    assertThat(lines.get(header + 3)).contains("feature_scan").contains("1.332 ms").contains("666");
    assertThat(lines).hasSize(header + 4);
  }

  @Test
  void infoAndAnalyzeEscapeTheControlCharactersOfNamesFromTheTrace() throws Exception {
    String evil = "evil\u001b]2;pwned\u0007\r\nFAKE LINE\u009b31m\u007f";
    Path t = dir.resolve("evil.gtrace");
    TraceMeta meta = new TraceMeta("sim\u001b[2J", ClockDomain.SIMULATED,
        List.of(new TraceDevice(0, "gpu\u001b[31m", "", DeviceKind.SIMULATED)), Map.of());
    try (TraceWriter w = TraceWriter.create(t, meta)) {
      for (int i = 0; i < 200; i++) {
        long at = i * 10_000L;
        w.write(new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 1, i + 1, at, at + 2_000));
        w.write(new KernelRecord(evil, 0, 1, i + 1, at + 3_000, at + (i % 7 == 0 ? 9_000 : 5_000), new Dim3(64, 1,
            1), new Dim3(256, 1, 1), 32, 0, 0));
      }
    }
    for (Run r : List.of(gitm("trace", "info", t.toString()), gitm("analyze", t.toString()))) {
      assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
      String printed = r.out() + r.err();
      assertThat(printed.chars().filter(c -> (c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f)))
          .as("control characters printed").isEmpty();
      assertThat(printed.lines()).as("no name starts a line of its own").noneMatch(l -> l.startsWith("FAKE LINE"));
    }
    assertThat(gitm("trace", "info", t.toString()).out())
        .contains("evil\\x1b]2;pwned\\x07\\r\\nFAKE LINE\\u009b31m\\x7f")
        .contains("source       sim\\x1b[2J").contains("gpu\\x1b[31m");
  }

  @Test
  void infoOfAnEmptyTraceSaysSoWithoutASpan() throws Exception {
    Path t = dir.resolve("empty.gtrace");
    try (TraceWriter w = TraceWriter.create(t, new TraceMeta("cupti", ClockDomain.HOST_MONOTONIC, List.of(),
        Map.of()))) {
      assertThat(w.records()).isZero();
    }
    Run r = gitm("trace", "info", t.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("devices      none")
        .contains("records      0: kernel 0, copy 0, memset 0, sync 0, api 0, overhead 0, state 0, marker 0")
        .doesNotContain("span").doesNotContain("top kernels");
  }

  @Test
  void infoWithJsonPrintsTheSummaryAsData() throws Exception {
    Path t = gtrace("run.gtrace");
    Run r = gitm("trace", "info", t.toString(), "--json");
    assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
    JsonNode j = Json.MAPPER.readTree(r.out());
    assertThat(j.get("records").asLong()).isEqualTo(2002);
    assertThat(j.get("meta").get("deviceKind").asString()).isEqualTo("SIMULATED");
    assertThat(j.get("recordCounts").get("kernel").asLong()).isEqualTo(1000);
    assertThat(j.get("spanNs").asLong()).isEqualTo(9_999_000);
    assertThat(j.get("streamsByDevice").get("0").toString()).isEqualTo("[1,2]");
    assertThat(j.get("topKernels").get(0).get("name").asString()).isEqualTo("lob_update");
    assertThat(j.get("topKernels").get(0).get("totalNs").asLong()).isEqualTo(334 * 6_000L);
  }

  @Test
  void exportWritesPerfettoJsonNextToTheTrace() throws Exception {
    Path t = gtrace("run.gtrace");
    Run r = gitm("trace", "export", "--perfetto", t.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
    Path out = dir.resolve("run.perfetto.json");
    assertThat(r.out()).startsWith("wrote " + out + ": ").contains("from 2002 records");
    JsonNode j = Json.MAPPER.readTree(out.toFile());
    assertThat(j.get("traceEvents").size()).isGreaterThan(3000);
  }

  @Test
  void importThenExportWithDefaultNamesKeepsTheKinetoInput() throws Exception {
    Path in = kineto("k.json");
    assertThat(gitm("trace", "import", in.toString()).code()).isZero();
    Run export = gitm("trace", "export", "--perfetto", dir.resolve("k.gtrace").toString());
    assertThat(export.code()).as(export.err()).isZero();
    assertThat(dir.resolve("k.perfetto.json")).exists();
    assertThat(Files.readString(in)).isEqualTo(KINETO);
    Run info = gitm("trace", "info", dir.resolve("k.gtrace").toString());
    assertThat(info.code()).isZero();
    // from the cpu_op at 9 µs
    assertThat(info.out()).contains("from 2025-11-29T23:00:00.000009Z").contains("ampere_sgemm_128x64_nn");
  }

  @Test
  void aMissingInputIsAUsageError() {
    Path missing = dir.resolve("nope.gtrace");
    for (String[] args : List.of(new String[] {"trace", "info", missing.toString()},
        new String[] {"trace", "export", "--perfetto", missing.toString()},
        new String[] {"trace", "import", missing.toString()})) {
      Run r = gitm(args);
      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(Main.USAGE);
      assertThat(r.err().lines().findFirst().orElseThrow()).isEqualTo("gitm: no such file: " + missing);
    }
  }

  @Test
  void aTruncatedTraceIsAFailureNamingTheByteOffset() throws Exception {
    Path t = gtrace("run.gtrace");
    byte[] bytes = Files.readAllBytes(t);
    Files.write(t, Arrays.copyOf(bytes, bytes.length - 7));
    for (String[] args : List.of(new String[] {"trace", "info", t.toString()},
        new String[] {"trace", "export", "--perfetto", t.toString()})) {
      Run r = gitm(args);
      assertThat(r.code()).isEqualTo(Main.FAILURE);
      assertThat(r.err()).matches("gitm: error: " + java.util.regex.Pattern.quote(t.toString())
          + ": truncated or corrupt at byte offset \\d+: a block header is cut short \\(the file ends at byte"
          + " \\d+\\)\\R");
    }
    assertThat(dir.resolve("run.perfetto.json")).doesNotExist();
  }

  @Test
  void aTruncatedKinetoFileIsAFailureNamingLineAndColumnAndWritesNothing() throws Exception {
    Path in = dir.resolve("cut.json");
    Files.writeString(in, KINETO.substring(0, KINETO.indexOf("elementwise_add")));
    Run r = gitm("trace", "import", in.toString());
    assertThat(r.code()).isEqualTo(Main.FAILURE);
    assertThat(r.err()).startsWith("gitm: error: " + in + ": line ").contains("the file is truncated");
    assertThat(r.err().lines()).hasSize(1);
    assertThat(dir.resolve("cut.gtrace")).doesNotExist();
    try (var files = java.nio.file.Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void badKinetoInputIsOneLineNamingTheFileExitOneAndWritesNothing() throws Exception {
    Path gz = dir.resolve("cut.pt.trace.json.gz");
    try (var o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      o.write(KINETO.getBytes(StandardCharsets.UTF_8));
    }
    byte[] whole = Files.readAllBytes(gz);
    Files.write(gz, Arrays.copyOf(whole, whole.length / 2));
    Path notATrace = dir.resolve("config.json");
    Files.writeString(notATrace, "{\"lr\": 0.01, \"layers\": [1, 2]}");
    Path empty = dir.resolve("empty.json");
    Files.writeString(empty, "");
    Path noEvents = dir.resolve("none.json");
    Files.writeString(noEvents, "{\"schemaVersion\": 1, \"traceEvents\": []}");
    Map<Path, String> why = new LinkedHashMap<>();
    why.put(gz, "the file is truncated");
    why.put(notATrace, "not a Kineto/Chrome trace: no \"traceEvents\" array");
    why.put(empty, "not a Kineto/Chrome trace: the file is empty");
    why.put(noEvents, "no device operations to import (no kernel, memcpy or memset event with a timestamp): the"
        + " trace has no events; the trace holds nothing");
    Path existing = dir.resolve("existing.gtrace");
    Files.writeString(existing, "kept");
    for (Map.Entry<Path, String> e : why.entrySet()) {
      Path in = e.getKey();
      for (String[] args : List.of(new String[] {"trace", "import", in.toString()},
          new String[] {"trace", "import", in.toString(), "-o", existing.toString()},
          new String[] {"analyze", in.toString(), "--scratch", dir.resolve("store").toString()})) {
        Run r = gitm(args);
        assertThat(r.code()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(Main.FAILURE);
        assertThat(r.err().lines().toList()).as(r.err()).hasSize(1);
        assertThat(r.err()).startsWith("gitm: error: " + in + ": ").contains(e.getValue());
        assertThat(r.out()).isEmpty();
      }
    }
    assertThat(Files.readString(existing)).isEqualTo("kept");
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(n -> !n.equals("store")))
          .containsExactlyInAnyOrder("cut.pt.trace.json.gz",
          "config.json", "empty.json", "none.json", "existing.gtrace");
    }
  }

  @Test
  void infoOfAnImportedTraceNamesTheEventsNotImportedAndWhy() throws Exception {
    // a Python call-stack event (profiled with_stack) beside the fixture's events: it is not imported
    String python = "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): step\","
        + " \"pid\": 1, \"tid\": 1, \"ts\": 12.0, \"dur\": 1.0},";
    Path in = Files.writeString(dir.resolve("k.json"), KINETO.replaceFirst("\"traceEvents\": \\[",
        "\"traceEvents\": [" + Matcher.quoteReplacement(python)));
    Run imported = gitm("trace", "import", in.toString());
    assertThat(imported.code()).as(imported.err()).isEqualTo(Main.OK);
    Run info = gitm("trace", "info", dir.resolve("k.gtrace").toString());
    assertThat(info.code()).as(info.err()).isEqualTo(Main.OK);
    assertThat(info.out()).contains("not imported cat python_function 1 (Python call stack (with_stack))");
    Run json = gitm("trace", "info", dir.resolve("k.gtrace").toString(), "--json");
    assertThat(Json.MAPPER.readTree(json.out()).get("notImported").get("cat python_function").asLong())
        .isEqualTo(1);
  }

  @Test
  void theWrongFormatIsAFailureThatSaysWhatToDo() throws Exception {
    Path json = kineto("profile.json");
    Run info = gitm("trace", "info", json.toString());
    assertThat(info.code()).isEqualTo(Main.FAILURE);
    assertThat(info.err()).isEqualTo("gitm: error: " + json + ": not a gitm trace: the file does not start with"
        + " \"GITMTRC1\" (at byte offset 0); it looks like JSON: to import a PyTorch profiler (Kineto) trace run"
        + " 'gitm trace import " + json + "'" + System.lineSeparator());

    Path t = gtrace("run.gtrace");
    Run imp = gitm("trace", "import", t.toString(), "-o", dir.resolve("x.gtrace").toString());
    assertThat(imp.code()).isEqualTo(Main.FAILURE);
    assertThat(imp.err()).startsWith("gitm: error: " + t + ": line 1, column ");
    assertThat(dir.resolve("x.gtrace")).doesNotExist();
  }

  @Test
  void badUsageIsExitTwoWithOneLine() throws Exception {
    Path t = gtrace("run.gtrace");
    Run noFormat = gitm("trace", "export", t.toString());
    assertThat(noFormat.code()).isEqualTo(Main.USAGE);
    assertThat(noFormat.err()).startsWith("gitm: choose an export format: --perfetto" + System.lineSeparator());

    Run overwrite = gitm("trace", "export", "--perfetto", t.toString(), "-o", t.toString());
    assertThat(overwrite.code()).isEqualTo(Main.USAGE);
    assertThat(overwrite.err()).startsWith("gitm: the output would overwrite the input: " + t);

    Run noFolder = gitm("trace", "import", kineto("k.json").toString(), "-o",
        dir.resolve("missing/out.gtrace").toString());
    assertThat(noFolder.code()).isEqualTo(Main.USAGE);
    assertThat(noFolder.err()).startsWith("gitm: the output folder does not exist: " + dir.resolve("missing"));

    Run unit = gitm("trace", "import", kineto("k.json").toString(), "--ts-unit", "ms");
    assertThat(unit.code()).isEqualTo(Main.USAGE);
    assertThat(unit.err()).contains("--ts-unit").contains("ms");

    Run noCommand = gitm("trace");
    assertThat(noCommand.code()).isEqualTo(Main.USAGE);
    assertThat(noCommand.err()).startsWith("gitm: a trace command is required (export, import, info)");

    Run noFile = gitm("trace", "info");
    assertThat(noFile.code()).isEqualTo(Main.USAGE);

    Run negativeTop = gitm("trace", "info", t.toString(), "--top", "-1");
    assertThat(negativeTop.code()).isEqualTo(Main.USAGE);
    assertThat(negativeTop.err()).startsWith("gitm: --top must be 0 or more, got -1");
  }

  @Test
  void everyTraceCommandHasHelp() {
    for (String cmd : List.of("export", "import", "info")) {
      Run r = gitm("trace", cmd, "--help");
      assertThat(r.code()).isZero();
      assertThat(r.out()).startsWith("Usage: gitm trace " + cmd);
    }
    Run r = gitm("trace", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("export").contains("import").contains("info");
    assertThat(gitm("--help").out()).contains("trace");
  }
}
