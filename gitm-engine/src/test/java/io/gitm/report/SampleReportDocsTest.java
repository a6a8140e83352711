package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sample reports of the documentation, {@code docs/examples/report-sample.{md,html,json}}: rendered from
 * {@link SampleReports#sample()} (every figure invented, labeled SAMPLE on every page). The test fails when a file
 * differs from what the renderers make now; {@code -Dgitm.writeSamples=true} writes them instead:
 * {@code ./mvnw -q -o -pl gitm-engine -am verify -Dtest=SampleReportDocsTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dgitm.writeSamples=true}.
 */
class SampleReportDocsTest {

  static Map<String, String> rendered() {
    Report sample = SampleReports.sample();
    Map<String, String> files = new LinkedHashMap<>();
    files.put("report-sample.md", Reports.markdown(sample));
    files.put("report-sample.html", Reports.html(sample));
    files.put("report-sample.json", Reports.json(sample));
    return files;
  }

  @Test
  void docsExamplesAreWhatTheRenderersMakeOfTheSample() throws Exception {
    Path dir = JsonReportTest.docs().resolve("examples");
    boolean write = Boolean.getBoolean("gitm.writeSamples");
    for (Map.Entry<String, String> f : rendered().entrySet()) {
      Path file = dir.resolve(f.getKey());
      if (write) {
        Files.createDirectories(dir);
        Files.writeString(file, f.getValue());
      }
      assertThat(file).as("docs/examples/%s is missing: run this test with -Dgitm.writeSamples=true", f.getKey())
          .isRegularFile();
      assertThat(Files.readString(file)).as("docs/examples/%s is out of date: run this test with"
          + " -Dgitm.writeSamples=true", f.getKey()).isEqualTo(f.getValue());
    }
  }

  @Test
  void everySampleFileSaysItIsASampleWithInventedFigures() {
    Map<String, String> files = rendered();
    assertThat(files.get("report-sample.md")).startsWith("# gitm run").contains("SAMPLE report.")
        .contains("SAMPLE (invented figures)");
    assertThat(files.get("report-sample.html")).contains("SAMPLE report: every figure on this page is invented");
    assertThat(files.get("report-sample.json")).contains("\"sample\" : true")
        .contains("\"banner\" : \"SAMPLE report: every figure is invented, for documentation; SIMULATED device");
  }
}
