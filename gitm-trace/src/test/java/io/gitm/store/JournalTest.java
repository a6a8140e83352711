package io.gitm.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
  @TempDir
  Path dir;

  @Test
  void appendedEntriesReadBackInOrderWithSequenceNumbers() throws IOException {
    Path f = dir.resolve("journal.jsonl");
    try (Journal j = Journal.open(f)) {
      j.append("phase", "t1", Map.of("name", "profile"));
      j.append("trial", "t2", Map.of("lever", "pinned-host", "gain", 0.12));
    }
    Journal.Contents c = Journal.read(f);
    assertThat(c.tornTail()).isNull();
    assertThat(c.entries()).extracting(Journal.Entry::seq).containsExactly(1L, 2L);
    assertThat(c.entries().get(1).data()).containsEntry("lever", "pinned-host");
  }

  @Test
  void anAppendByAnInterruptedThreadIsWrittenAndTheJournalStaysOpen() throws IOException {
    Path f = dir.resolve("journal.jsonl");
    try (Journal j = Journal.open(f)) {
      j.append("trial", "t1", Map.of());
      Thread.currentThread().interrupt();
      try {
        j.append("trial", "t2", Map.of());
        j.append("end", "t3", Map.of());
      } finally {
        assertThat(Thread.interrupted()).as("the interrupt is left for the caller").isTrue();
      }
    }
    assertThat(Journal.read(f).entries()).extracting(Journal.Entry::type).containsExactly("trial", "trial", "end");
  }

  @Test
  void tornLastLineFromACrashIsLeftOutReportedAndRepairedOnReopen() throws IOException {
    Path f = dir.resolve("journal.jsonl");
    try (Journal j = Journal.open(f)) {
      j.append("phase", "t1", Map.of());
      j.append("trial", "t2", Map.of());
    }
    Files.writeString(f, "{\"seq\":3,\"time\":\"t3\",\"ty", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    Journal.Contents c = Journal.read(f);
    assertThat(c.entries()).hasSize(2);
    assertThat(c.tornTail()).contains("incomplete entry at line 3");
    try (Journal j = Journal.open(f)) {
      assertThat(j.append("resume", "t4", Map.of()).seq()).isEqualTo(3);
    }
    Journal.Contents after = Journal.read(f);
    assertThat(after.tornTail()).isNull();
    assertThat(after.entries()).extracting(Journal.Entry::type).containsExactly("phase", "trial", "resume");
  }

  @Test
  void corruptLineBeforeTheLastIsAnErrorNamingTheLine() throws IOException {
    Path f = dir.resolve("journal.jsonl");
    Files.writeString(f, "{\"seq\":1,\"time\":\"t\",\"type\":\"a\",\"data\":{}}\nGARBAGE\n"
        + "{\"seq\":2,\"time\":\"t\",\"type\":\"b\",\"data\":{}}\n");
    assertThatThrownBy(() -> Journal.read(f)).isInstanceOf(IOException.class).hasMessageContaining("line 2");
  }

  @Test
  void sequenceGapIsCorruption() throws IOException {
    Path f = dir.resolve("journal.jsonl");
    Files.writeString(f, "{\"seq\":1,\"time\":\"t\",\"type\":\"a\",\"data\":{}}\n"
        + "{\"seq\":3,\"time\":\"t\",\"type\":\"b\",\"data\":{}}\n"
        + "{\"seq\":4,\"time\":\"t\",\"type\":\"b\",\"data\":{}}\n");
    assertThatThrownBy(() -> Journal.read(f)).hasMessageContaining("expected 2");
  }
}
