package io.gitm.os;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.api.Ticker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job's descendants as gitm finds them, and ending them by pid and start time. */
class ProcessTreeTest {
  @TempDir
  Path dir;

  /** Waits (a bounded number of reads) for the line {@code TAG PID} in {@code file}. */
  private static long pid(Path file, String tag) throws Exception {
    for (int i = 0; i < 1000; i++) {
      if (Files.exists(file)) {
        for (String l : Files.readAllLines(file)) {
          if (l.startsWith(tag + " ")) {
            return Long.parseLong(l.substring(tag.length() + 1).strip());
          }
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no line '" + tag + " PID' in " + file);
  }

  @Test
  void aJobsDescendantsIncludeThoseReparentedToGitmAndNeverAProcessOfGitmsOwnSession() throws Exception {
    assertThat(ProcessTree.subreaper()).isTrue();
    Path out = dir.resolve("pids");
    Process own = new ProcessBuilder("sleep", "1020").start();
    Process root = new ProcessBuilder("setsid", "bash", "-c", "( setsid sleep 1021 & echo \"detached $!\" >> "
        + out + " ); sleep 1022 & echo \"child $!\" >> " + out + "; wait").start();
    try {
      long detached = pid(out, "detached");
      long child = pid(out, "child");
      for (int i = 0; i < 1000 && ProcessTree.read(detached).orElseThrow().ppid() != ProcessHandle.current().pid();
          i++) {
        Thread.sleep(20);
      }
      List<ProcessTree.Found> found = ProcessTree.descendants(root.pid(), 0, List.of());

      assertThat(found).extracting(ProcessTree.Found::pid).contains(detached, child)
          .doesNotContain(own.pid(), root.pid());
      assertThat(ProcessTree.read(detached).orElseThrow().ppid()).as("re-parented to gitm")
          .isEqualTo(ProcessHandle.current().pid());
      assertThat(ProcessTree.descendants(root.pid(), 0, List.of(root.pid(), detached)))
          .extracting(ProcessTree.Found::pid).doesNotContain(detached);
    } finally {
      ProcessTree.end(ProcessTree.descendants(root.pid(), 0, List.of()), Duration.ofSeconds(2), Ticker.system());
      root.destroyForcibly().waitFor();
      own.destroyForcibly().waitFor();
    }
  }

  @Test
  void aProcessIsEndedOnlyWhileItIsTheOneRecorded() throws Exception {
    Process p = new ProcessBuilder("setsid", "sleep", "1023").start();
    try {
      long start = ProcessTree.read(p.pid()).orElseThrow().start();
      ProcessTree.Found other = new ProcessTree.Found(p.pid(), start + 1, "sleep 1023");

      assertThat(ProcessTree.end(List.of(other), Duration.ofMillis(100), Ticker.system())).isEmpty();
      assertThat(p.isAlive()).isTrue();

      ProcessTree.end(List.of(new ProcessTree.Found(p.pid(), start, "sleep 1023")), Duration.ofSeconds(2),
          Ticker.system());
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("ended, however busy the machine").isTrue();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void aCommandLineIsItsArgumentsJoinedBySpaces() throws Exception {
    Process p = new ProcessBuilder("sleep", "1024").start();
    try {
      for (int i = 0; i < 1000 && !ProcessTree.commandLine(p.pid()).equals("sleep 1024"); i++) {
        Thread.sleep(20);
      }
      assertThat(ProcessTree.commandLine(p.pid())).isEqualTo("sleep 1024");
      assertThat(ProcessTree.commandLine(Integer.MAX_VALUE)).isEmpty();
    } finally {
      p.destroyForcibly().waitFor();
    }
  }
}
