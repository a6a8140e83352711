package io.gitm.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunStoreTest {
  @TempDir
  Path dir;

  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

  @Test
  void openCreatesTheSeedLayout() throws IOException {
    RunStore s = RunStore.open(dir.resolve("gitm"));
    for (String t : RunStore.TOP_LEVEL) {
      assertThat(s.root().resolve(t)).isDirectory();
    }
    assertThat(s.datasets("hft")).isDirectory();
    assertThat(s.datasets("biotech")).isDirectory();
    assertThat(s.datasets("edge")).isDirectory();
    assertThatThrownBy(() -> s.datasets("nope")).hasMessageContaining("unknown dataset domain");
  }

  @Test
  void scratchDefaultsToCacheFolderAndHonoursGitmScratch() {
    assertThat(RunStore.defaultRoot(Map.of())).endsWithRaw(Path.of(".cache", "gitm"));
    assertThat(RunStore.defaultRoot(Map.of("GITM_SCRATCH", dir.toString()))).isEqualTo(dir.toAbsolutePath());
  }

  @Test
  void storeRootThatIsAFileIsRefused() throws IOException {
    Path f = Files.writeString(dir.resolve("file"), "x");
    assertThatThrownBy(() -> RunStore.open(f)).hasMessageContaining("is a file");
  }

  @Test
  void runFolderHoldsItsDescriptionAndIsFoundByIdOrPath() throws IOException {
    RunStore s = RunStore.open(dir);
    RunDir r = RunDir.create(s, new RunInfo(null, "hft-lob", "gitm run", "2m", "15%",
        Map.of("kind", "simulated"), null, "dev"), CLOCK);
    assertThat(r.id()).startsWith("20261129-120000-hft-lob-");
    assertThat(s.runIds()).containsExactly(r.id());
    assertThat(s.run(r.id()).info()).isEqualTo(r.info());
    assertThat(s.run(r.dir().toString()).info().device()).containsEntry("kind", "simulated");
    assertThatThrownBy(() -> s.run("missing")).hasMessageContaining("no run 'missing'");
  }

  @Test
  void scanReportsForeignUnreadableAndInterruptedFilesWithoutDeletingThem() throws IOException {
    RunStore s = RunStore.open(dir);
    RunDir r = RunDir.create(s, new RunInfo(null, "hft-lob", "", "", "", Map.of(), null, "dev"), CLOCK);
    Path foreign = Files.writeString(dir.resolve("notes.txt"), "mine");
    Path leftover = Files.writeString(r.dir().resolve(".report.md.1234.tmp"), "half");
    Path noRun = Files.createDirectories(s.runs().resolve("someone-elses"));
    Path badRun = Files.createDirectories(s.runs().resolve("broken"));
    Files.writeString(badRun.resolve(RunDir.RUN_FILE), "{not json");
    var findings = StoreScan.scan(s);
    assertThat(findings).extracting(StoreScan.Finding::path, StoreScan.Finding::kind).contains(
        org.assertj.core.groups.Tuple.tuple(foreign, StoreScan.Kind.FOREIGN),
        org.assertj.core.groups.Tuple.tuple(leftover, StoreScan.Kind.INCOMPLETE_WRITE),
        org.assertj.core.groups.Tuple.tuple(noRun, StoreScan.Kind.FOREIGN),
        org.assertj.core.groups.Tuple.tuple(badRun.resolve(RunDir.RUN_FILE), StoreScan.Kind.CORRUPT));
    assertThat(foreign).exists();
    assertThat(leftover).exists();
    assertThat(noRun).exists();
  }
}
