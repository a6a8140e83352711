package io.gitm.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunLockTest {
  @TempDir
  Path dir;

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T04:00:00Z"), ZoneOffset.UTC);

  /** Holds the lock of the folder in {@code args[0]} until its standard input closes; says "locked" once held. */
  public static final class Holder {
    public static void main(String[] args) throws IOException {
      try (RunLock lock = RunLock.acquire(Path.of(args[0]))) {
        System.out.println("locked");
        System.out.flush();
        while (System.in.read() >= 0) {
          // hold until stdin closes or the process is killed
        }
      }
    }
  }

  @Test
  void aRunFolderHeldByALiveProcessIsRefusedNamingItsPidAndFreedWhenItIsKilled() throws Exception {
    Path run = Files.createDirectory(dir.resolve("run"));
    Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), Holder.class.getName(), run.toString()).redirectErrorStream(true)
        .start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("locked");
      assertThatThrownBy(() -> RunLock.acquire(run)).isInstanceOf(RunLock.HeldException.class)
          .hasMessageContaining("process " + holder.pid())
          .hasMessageNotContaining("\n")
          .satisfies(e -> assertThat(((RunLock.HeldException) e).pid()).hasValue(holder.pid()));
      assertThatThrownBy(() -> RunLock.checkFree(run)).isInstanceOf(RunLock.HeldException.class);
    } finally {
      holder.destroyForcibly();
      assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    // killed with SIGKILL: its lock went with it, and the file it left does not block the next writer
    assertThat(run.resolve(RunLock.FILE)).exists();
    try (RunLock lock = RunLock.acquire(run)) {
      assertThat(Files.readString(run.resolve(RunLock.FILE)).strip())
          .isEqualTo(Long.toString(ProcessHandle.current().pid()));
    }
  }

  @Test
  void aSecondWriterInTheSameProcessIsRefusedAndTheLockIsReleasedOnClose() throws Exception {
    Path run = Files.createDirectory(dir.resolve("run"));
    try (RunLock first = RunLock.acquire(run)) {
      assertThatThrownBy(() -> RunLock.acquire(run)).isInstanceOf(RunLock.HeldException.class)
          .hasMessageContaining("this gitm process (pid " + ProcessHandle.current().pid() + ")");
    }
    RunLock.checkFree(run);
    RunLock.acquire(run).close();
  }

  @Test
  void runFoldersAndTheirFilesAreTheUsersAloneWhateverTheUmask() throws Exception {
    RunStore store = RunStore.open(dir.resolve("store"));
    RunDir r = RunDir.create(store, new RunInfo(null, "hft-lob", "gitm run", "2m", "15%", Map.of(), null, "dev"),
        CLOCK);
    Path report = r.writeText("report.md", "# report\n");
    try (Journal j = r.journal()) {
      j.append("start", "t", Map.of());
    }
    assertThat(Files.getPosixFilePermissions(store.runs())).isEqualTo(Set.of(PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
    assertThat(Files.getPosixFilePermissions(r.dir())).isEqualTo(Set.of(PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
    for (Path f : List.of(r.dir().resolve(RunDir.RUN_FILE), report, r.dir().resolve(RunDir.JOURNAL_FILE))) {
      assertThat(Files.getPosixFilePermissions(f)).as("%s", f.getFileName())
          .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    }
  }
}
