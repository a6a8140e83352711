package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.TraceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceWriterAtomicityTest {
  @TempDir
  Path dir;

  @Test
  void aWriterThatIsNeverClosedLeavesNothingUnderTheFinalName() throws Exception {
    Path f = dir.resolve("crash.gtrace");
    TraceWriter w = TraceWriter.create(f, Samples.META);
    for (TraceRecord r : Samples.kernels(50_000)) {
      w.write(r);
    }
    assertThat(f).doesNotExist();
    assertThat(TmpFiles.of(dir, "crash.gtrace")).hasSize(1);
    assertThat(Files.size(TmpFiles.of(dir, "crash.gtrace").getFirst())).isGreaterThan(TraceFormat.BLOCK_TARGET_BYTES);
    w.abort();
    assertThat(TmpFiles.of(dir, "crash.gtrace")).isEmpty();
    assertThat(f).doesNotExist();
  }

  @Test
  void closePublishesTheFileAndRemovesTheTemporary() throws Exception {
    Path f = dir.resolve("ok.gtrace");
    Samples.write(f, Samples.META, Samples.everyType());
    assertThat(f).exists();
    assertThat(TmpFiles.of(dir, "ok.gtrace")).isEmpty();
    try (var s = Files.list(dir)) {
      assertThat(s.toList()).containsExactly(f);
    }
  }

  @Test
  void anAbortedRewriteLeavesThePreviousTraceIntact() throws Exception {
    Path f = dir.resolve("keep.gtrace");
    Samples.write(f, Samples.META, Samples.everyType());
    byte[] before = Files.readAllBytes(f);

    TraceWriter w = TraceWriter.create(f, Samples.TWO_DEVICES);
    for (TraceRecord r : Samples.kernels(10_000)) {
      w.write(r);
    }
    w.abort();

    assertThat(Files.readAllBytes(f)).isEqualTo(before);
    assertThat(Samples.readAll(f)).containsExactlyElementsOf(Samples.everyType());
    assertThat(TmpFiles.of(dir, "keep.gtrace")).isEmpty();
  }

  @Test
  void aStaleTemporaryFromACrashIsLeftAloneAndDoesNotDisturbANewWrite() throws Exception {
    Path f = dir.resolve("stale.gtrace");
    Path stale = Files.writeString(dir.resolve("stale.gtrace.1234.tmp"), "left over by a crashed writer");
    Samples.write(f, Samples.META, Samples.everyType());
    assertThat(Samples.readAll(f)).containsExactlyElementsOf(Samples.everyType());
    assertThat(stale).hasContent("left over by a crashed writer");
  }

  @Test
  void writingAfterCloseIsRefused() throws Exception {
    Path f = dir.resolve("closed.gtrace");
    TraceWriter w = TraceWriter.create(f, Samples.META);
    w.close();
    w.close();
    assertThatThrownBy(() -> w.write(Samples.everyType().getFirst())).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is closed");
    assertThat(Samples.readAll(f)).isEmpty();
  }

  @Test
  void aWriterIntoAMissingDirectoryFailsWithoutLeavingFiles() {
    Path f = dir.resolve("no/such/dir/x.gtrace");
    assertThatThrownBy(() -> TraceWriter.create(f, Samples.META)).isInstanceOf(java.io.IOException.class);
    assertThat(f).doesNotExist();
  }

  @Test
  void aTraceReadWhileItIsStillBeingWrittenIsNotMistakenForAWholeOne() throws Exception {
    Path f = dir.resolve("live.gtrace");
    try (TraceWriter w = TraceWriter.create(f, Samples.META)) {
      for (TraceRecord r : Samples.kernels(20_000)) {
        w.write(r);
      }
      Path tmp = TmpFiles.of(dir, "live.gtrace").getFirst();
      assertThatThrownBy(() -> {
        try (TraceReader r = TraceReader.open(tmp)) {
          r.read(x -> {});
        }
      }).isInstanceOf(TraceFormatException.class).hasMessageContaining("without the end marker");
    }
    assertThat(Samples.readAll(f)).hasSize(20_000);
  }

  @Test
  void recordsCountsWhatWasWritten() throws Exception {
    Path f = dir.resolve("count.gtrace");
    try (TraceWriter w = TraceWriter.create(f, Samples.META)) {
      List<TraceRecord> rs = Samples.everyType();
      for (TraceRecord r : rs) {
        w.write(r);
      }
      assertThat(w.records()).isEqualTo(rs.size());
      assertThat(w.file()).isEqualTo(f);
    }
  }
}
