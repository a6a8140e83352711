package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.tracer.TraceReader;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code gitm trace import} and {@code gitm analyze} on Nsight Systems exports (gitm-trace's nsys fixtures). */
class NsysCommandTest {
  @TempDir
  Path dir;

  private Path fixture(String resource, String name) throws Exception {
    Path p = dir.resolve(name);
    try (InputStream in = NsysCommandTest.class.getResourceAsStream("/tracer/nsys/" + resource)) {
      assertThat(in).as(resource).isNotNull();
      Files.copy(in, p);
    }
    return p;
  }

  private List<String> leftovers() throws Exception {
    try (var files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".gtrace") || n.endsWith(".tmp"))
          .toList();
    }
  }

  @Test
  void importOfAnNsysExportWritesATraceBesideItAndReportsTheSchemaAndRecords() throws Exception {
    Path in = fixture("nsys-v3.sqlite", "report.sqlite");
    CliResult r = CliResult.run("trace", "import", in.toString());

    assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
    Path out = dir.resolve("report.gtrace");
    assertThat(r.out()).contains("imported " + in + " (Nsight Systems export, schema 3.11.1) into " + out
        + ": 21 records from 21 rows (api 9, copy 3, kernel 4, marker 2, memset 1, sync 2)")
        .contains("clock UNIX_EPOCH; devices: 0 NVIDIA H200")
        .contains("not imported: NVTX_EVENTS (marks and other events without an end) 1");
    try (TraceReader reader = TraceReader.open(out)) {
      assertThat(reader.meta().source()).isEqualTo("nsys");
      assertThat(reader.read(x -> {})).isEqualTo(21);
    }
  }

  @Test
  void anExportIsFoundByItsSqliteHeaderWhateverItsNameAndReportsAsJson() throws Exception {
    Path in = fixture("nsys-v2.sqlite", "capture.db");
    Path out = dir.resolve("capture.gtrace");
    CliResult r = CliResult.run("trace", "import", in.toString(), "-o", out.toString(), "--json");

    assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
    JsonNode j = Json.MAPPER.readTree(r.out());
    assertThat(j.get("format").asString()).isEqualTo("nsys");
    assertThat(j.get("schemaVersion").asString()).isEqualTo("2.7.1");
    assertThat(j.get("recordsByType").get("kernel").asLong()).isEqualTo(3);
    assertThat(j.get("devices").get(1).get("name").asString()).isEqualTo("A100-SXM4-40GB");
    assertThat(out).exists();
  }

  @Test
  void analyzeReadsAnNsysExportStraightAway() throws Exception {
    Path in = fixture("nsys-v3.sqlite", "report.sqlite");
    CliResult r = CliResult.run("analyze", in.toString(), "--json");

    assertThat(r.code()).as(r.err()).isEqualTo(Main.OK);
    JsonNode j = Json.MAPPER.readTree(r.out());
    assertThat(j.get("devices").get(0).get("name").asString()).isEqualTo("NVIDIA H200");
    assertThat(j.get("busyNs").asLong()).isPositive();
    assertThat(leftovers()).isEmpty();
  }

  @Test
  void everyBadSqliteInputIsOneLineExitOneAndWritesNothing() throws Exception {
    Path other = fixture("other-program.sqlite", "places.sqlite");
    Path v9 = fixture("nsys-v9.sqlite", "future.sqlite");
    Path text = dir.resolve("notes.sqlite");
    Files.writeString(text, "not a database\n", StandardCharsets.UTF_8);
    Path whole = fixture("nsys-v3.sqlite", "whole.bin");
    byte[] bytes = Files.readAllBytes(whole);
    Path cut = dir.resolve("cut.sqlite");
    Files.write(cut, Arrays.copyOf(bytes, bytes.length / 3));
    List<List<Object>> cases = List.of(
        List.of(other, "a SQLite database, but not an Nsight Systems export"),
        List.of(v9, "an Nsight Systems export of schema version 9.0.0"),
        List.of(text, "not a SQLite database"),
        List.of(cut, "cannot be read as an Nsight Systems export"));
    for (List<Object> c : cases) {
      Path in = (Path) c.get(0);
      for (String command : List.of("import", "analyze")) {
        CliResult r = command.equals("import") ? CliResult.run("trace", "import", in.toString())
            : CliResult.run("analyze", in.toString());
        assertThat(r.code()).as(command + " " + in + ": " + r.err()).isEqualTo(Main.FAILURE);
        assertThat(r.err()).as(command + " " + in).startsWith("gitm: error: " + in + ": " + c.get(1));
        assertThat(r.err().lines()).as(command + " " + in).hasSize(1);
      }
    }
    assertThat(leftovers()).isEmpty();
  }

  @Test
  void anNsysReportIsAFailureThatSaysHowToExportIt() throws Exception {
    Path rep = dir.resolve("profile.nsys-rep");
    Files.writeString(rep, "binary report");
    CliResult r = CliResult.run("trace", "import", rep.toString());
    assertThat(r.code()).isEqualTo(Main.FAILURE);
    assertThat(r.errorLine()).isEqualTo("gitm: error: " + rep + ": an Nsight Systems report, which gitm reads once"
        + " exported to SQLite: run 'nsys export --type sqlite " + rep + "' and give gitm the .sqlite file");
  }
}
