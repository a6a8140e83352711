package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.tracer.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Every field of every command's {@code --json} document is named in docs/report-schema.md. */
class JsonDocumentsTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir
  Path dir;

  @Test
  void everyCommandsJsonFieldIsDocumentedInTheSchema() throws Exception {
    String schema = Files.readString(docs().resolve("report-schema.md"));
    Path trace = trace(dir.resolve("t.gtrace"));
    String scratch = dir.resolve("scratch").toString();
    List<List<String>> commands = List.of(List.of("version", "--json"),
        List.of("doctor", "--json", "--scratch", scratch), List.of("plan", "--json"),
        List.of("levers", "--json", "--scratch", scratch), List.of("trace", "info", trace.toString(), "--json"),
        List.of("trace", "replay", trace.toString(), "--json"), List.of("analyze", trace.toString(), "--json"));
    Set<String> names = new TreeSet<>();
    for (List<String> c : commands) {
      CliResult r = CliResult.run(c.toArray(String[]::new));
      assertThat(r.code()).as("%s: %s", c, r.err()).isZero();
      fields(JSON.readTree(r.out()), names);
    }
    assertThat(names).hasSizeGreaterThan(60);
    for (String name : names) {
      assertThat(schema).as("docs/report-schema.md documents `%s`", name).contains("`" + name + "`");
    }
  }

  /** The field names of {@code node} and of the objects in its lists, one level down. */
  private static void fields(JsonNode node, Set<String> names) {
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      names.add(e.getKey());
      if (e.getValue().isArray() && !e.getValue().isEmpty() && e.getValue().get(0).isObject()) {
        e.getValue().get(0).properties().forEach(f -> names.add(f.getKey()));
      }
    }
  }

  private static Path trace(Path p) throws Exception {
    TraceMeta meta = new TraceMeta("sim", ClockDomain.SIMULATED,
        List.of(new TraceDevice(0, "sim-h200", "", DeviceKind.SIMULATED)), Map.of());
    try (TraceWriter w = TraceWriter.create(p, meta)) {
      for (int i = 0; i < 200; i++) {
        long t = i * 10_000L;
        w.write(new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 1, i + 1, t, t + 2_000));
        w.write(new KernelRecord("k" + i % 3, 0, 1, i + 1, t + 3_000, t + 8_000, new Dim3(64, 1, 1),
            new Dim3(256, 1, 1), 32, 0, 0));
      }
    }
    return p;
  }

  private static Path docs() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("docs/ARCHITECTURE.md"))) {
        return p.resolve("docs");
      }
    }
    throw new IllegalStateException("no docs/ folder above " + Path.of("").toAbsolutePath());
  }
}
