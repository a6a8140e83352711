package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.DeviceKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class JsonReportTest {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  @Test
  void sampleHostileAndBareReportsRoundTripUnchanged() {
    for (Report r : new Report[] {SampleReports.sample(), SampleReports.hostile(),
        SampleReports.bare(DeviceKind.SIMULATED), SampleReports.bare(DeviceKind.REAL)}) {
      String json = Reports.json(r);
      Report back = Reports.fromJson(json);
      assertThat(back).isEqualTo(r);
      assertThat(Reports.json(back)).isEqualTo(json);
    }
  }

  @Test
  void schemaVersionComesFirstAndDerivedFiguresAreWritten() {
    Report r = SampleReports.sample();
    JsonNode j = MAPPER.readTree(Reports.json(r));
    assertThat(j.propertyNames().iterator().next()).isEqualTo("schemaVersion");
    assertThat(j.get("schemaVersion").asInt()).isEqualTo(Report.SCHEMA_VERSION);
    assertThat(j.get("banner").asString()).contains("SIMULATED device").contains("SAMPLE");
    assertThat(j.get("budgetOverrunSeconds").asDouble()).isEqualTo(r.budgetOverrunSeconds());
    assertThat(j.at("/run/device/kind").asString()).isEqualTo("SIMULATED");
    assertThat(j.at("/run/startedAt").asString()).isEqualTo("2026-11-30T00:49:42Z");
    assertThat(j.at("/outcome/gain/low").asDouble()).isEqualTo(0.079);
    assertThat(j.at("/trials/5/measuredDelta").isNull()).isTrue();
  }

  @Test
  void aMissingFieldIsAnErrorNotADefault() {
    ObjectNode j = (ObjectNode) MAPPER.readTree(Reports.json(SampleReports.sample()));
    ((ObjectNode) j.get("baseline")).remove("iterations");
    assertThatThrownBy(() -> Reports.fromJson(j.toString())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a valid gitm report: ").hasMessageContaining("iterations")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void anUnknownFieldIsAnError() {
    ObjectNode j = (ObjectNode) MAPPER.readTree(Reports.json(SampleReports.sample()));
    ((ObjectNode) j.get("run")).put("budgetMinutes", 2);
    assertThatThrownBy(() -> Reports.fromJson(j.toString())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("budgetMinutes").satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void anotherSchemaVersionIsRefusedByName() {
    ObjectNode j = (ObjectNode) MAPPER.readTree(Reports.json(SampleReports.sample()));
    j.put("schemaVersion", 1);
    assertThatThrownBy(() -> Reports.fromJson(j.toString())).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a valid gitm report: report schema version 1 is not the one this gitm reads (4)");
  }

  @Test
  void aModelRuleBrokenInTheFileIsReportedWithTheModelsMessage() {
    ObjectNode j = (ObjectNode) MAPPER.readTree(Reports.json(SampleReports.sample()));
    ((ObjectNode) j.at("/outcome/gain")).put("low", 0.5);
    assertThatThrownBy(() -> Reports.fromJson(j.toString())).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a valid gitm report: estimate 0.102 lies outside its interval [0.5, 0.124]");
  }

  @Test
  void emptyOrTruncatedTextIsAnError() {
    String json = Reports.json(SampleReports.sample());
    assertThatThrownBy(() -> Reports.fromJson("  ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the report JSON is empty");
    assertThatThrownBy(() -> Reports.fromJson(json.substring(0, json.length() / 2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not a valid gitm report: ")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThatThrownBy(() -> Reports.fromJson(json + "{}")).isInstanceOf(IllegalArgumentException.class);
  }

  /** Every field name the JSON holds, as {@code parent.name} paths with array indexes left out. */
  private static void fields(JsonNode n, String path, Set<String> out, boolean mapValues) {
    if (n.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = n.properties().iterator(); it.hasNext();) {
        Map.Entry<String, JsonNode> e = it.next();
        boolean free = path.endsWith("fingerprint") || path.endsWith("data");
        String name = free ? "*" : e.getKey();
        if (!free) {
          out.add(name);
        }
        fields(e.getValue(), path + "." + name, out, free);
      }
    } else if (n.isArray()) {
      for (JsonNode c : n) {
        fields(c, path, out, mapValues);
      }
    }
  }

  @Test
  void theSchemaDocumentNamesEveryFieldTheJsonHolds() throws Exception {
    Path doc = docs().resolve("report-schema.md");
    String schema = Files.readString(doc);
    Set<String> names = new TreeSet<>();
    fields(MAPPER.readTree(Reports.json(SampleReports.sample())), "", names, false);
    fields(MAPPER.readTree(Reports.json(SampleReports.scored())), "", names, false);
    assertThat(names).hasSizeGreaterThan(60);
    for (String name : names) {
      assertThat(schema).as("docs/report-schema.md documents `%s`", name).contains("`" + name + "`");
    }
    assertThat(schema).contains("This is schema version " + Report.SCHEMA_VERSION + ".");
    List<Enum<?>> values = new ArrayList<>();
    values.addAll(List.of(Report.Status.values()));
    values.addAll(List.of(Report.Verdict.values()));
    values.addAll(List.of(Report.RefKind.values()));
    values.addAll(List.of(Report.SpanKind.values()));
    values.addAll(List.of(DeviceKind.values()));
    for (Enum<?> e : values) {
      assertThat(schema).as("value %s", e).contains("`" + e.name() + "`");
    }
  }

  /** The repository's {@code docs/} folder, found from the module's working directory. */
  static Path docs() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("docs/ARCHITECTURE.md"))) {
        return p.resolve("docs");
      }
    }
    throw new IllegalStateException("no docs/ folder above " + Path.of("").toAbsolutePath());
  }
}
