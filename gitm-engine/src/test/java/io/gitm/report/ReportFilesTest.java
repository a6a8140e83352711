package io.gitm.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.trace.DeviceKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportFilesTest {

  @Test
  void writesTheThreeFormatsAndAnInterruptedReportIsReplacedByTheFinalOne(@TempDir Path dir) throws Exception {
    Report interrupted = SampleReports.bare(DeviceKind.SIMULATED);
    List<Path> first = Reports.write(dir, interrupted);
    assertThat(first).extracting(p -> p.getFileName().toString()).containsExactlyElementsOf(Reports.FILES);
    assertThat(Files.readString(dir.resolve("report.md"))).isEqualTo(Reports.markdown(interrupted));

    Report done = SampleReports.sample();
    Reports.write(dir, done);
    assertThat(Files.readString(dir.resolve("report.md"))).isEqualTo(Reports.markdown(done));
    assertThat(Files.readString(dir.resolve("report.html"))).isEqualTo(Reports.html(done));
    assertThat(Reports.fromJson(Files.readString(dir.resolve("report.json")))).isEqualTo(done);
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrderElementsOf(Reports.FILES);
    }
  }

  @Test
  void createsTheFolderWhenMissing(@TempDir Path dir) throws Exception {
    Path runs = dir.resolve("runs/20261130-004942-hft-lob-d202");
    Reports.write(runs, SampleReports.bare(DeviceKind.REAL));
    assertThat(runs.resolve("report.json")).isRegularFile();
  }
}
