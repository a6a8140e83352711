package io.gitm.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
  @TempDir
  Path dir;

  @Test
  void readerSeesOldContentUntilTheWriteIsClosed() throws IOException {
    Path f = dir.resolve("report.md");
    Files.writeString(f, "old");
    try (AtomicFiles.Pending w = AtomicFiles.open(f)) {
      w.write("new content".getBytes());
      w.flush();
      assertThat(Files.readString(f)).isEqualTo("old");
      assertThat(w.temporary()).exists();
      w.commit();
    }
    assertThat(Files.readString(f)).isEqualTo("new content");
    try (var s = Files.list(dir)) {
      assertThat(s.toList()).containsExactly(f);
    }
  }

  @Test
  void abortedWriteLeavesTargetUntouchedAndNoTemporary() throws IOException {
    Path f = dir.resolve("run.json");
    Files.writeString(f, "keep");
    AtomicFiles.Pending w = AtomicFiles.open(f);
    w.write("half".getBytes());
    w.abort();
    w.close();
    assertThat(Files.readString(f)).isEqualTo("keep");
    try (var s = Files.list(dir)) {
      assertThat(s.toList()).containsExactly(f);
    }
  }

  @Test
  void failedWriteLeavesTheGoodFileAndNoTemporary() throws IOException {
    Path f = dir.resolve("baseline.json");
    Files.writeString(f, "good");
    try (AtomicFiles.Pending w = AtomicFiles.open(f)) {
      w.write("partial".getBytes());
      throw new IOException("No space left on device");
    } catch (IOException expected) {
      assertThat(expected).hasMessageContaining("No space");
    }
    assertThat(Files.readString(f)).isEqualTo("good");
    try (var s = Files.list(dir)) {
      assertThat(s.toList()).containsExactly(f);
    }
  }

  @Test
  void writeIntoMissingFolderCreatesIt() throws IOException {
    Path f = dir.resolve("a/b/c.txt");
    AtomicFiles.writeString(f, "x");
    assertThat(Files.readString(f)).isEqualTo("x");
  }

  @Test
  void targetThatIsAFolderFailsAndLeavesNoTemporary() throws IOException {
    Path f = dir.resolve("taken");
    Files.createDirectories(f.resolve("child"));
    assertThatThrownBy(() -> AtomicFiles.writeString(f, "x")).isInstanceOf(IOException.class);
    try (var s = Files.list(dir)) {
      assertThat(s.toList()).containsExactly(f);
    }
  }
}
