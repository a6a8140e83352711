package io.gitm.job;

import io.gitm.api.Ticker;
import io.gitm.os.ProcessGroups;
import io.gitm.os.ProcessTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The processes of one run of a black-box job, from its start to its end: its first process (a session and process
 * group of its own), and every descendant {@link ProcessTree} finds, also those that made a new session. While the
 * run goes on, the first process and the descendants seen so far are written to {@value #LIVE_FILE} in the log
 * folder, so that when gitm itself is killed (SIGKILL) the next gitm to open the job's folder ends what is left of
 * them ({@link #endEarlier}); the file is removed when the run has ended.
 */
final class JobProcesses {
  /** The record of the run in progress, in the job's {@code trials/} folder. */
  static final String LIVE_FILE = "job-processes.json";
  /** Clock ticks per second of {@code /proc/<pid>/stat}'s start times (USER_HZ, 100 on Linux). */
  private static final long USER_HZ = 100;
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Path file;
  private final long root;
  private final long rootStart;
  private final long since;
  private final Map<Long, ProcessTree.Found> seen = new LinkedHashMap<>();

  private JobProcesses(Path file, long root, long rootStart, long since) {
    this.file = file;
    this.root = root;
    this.rootStart = rootStart;
    this.since = since;
  }

  /** The host's time since boot in start-time ticks, rounded down, less one tick: at or before any later start. */
  static long ticksNow() {
    try {
      String up = Files.readString(Path.of("/proc/uptime"), StandardCharsets.US_ASCII).strip().split("\\s+")[0];
      return Math.max(0, (long) Math.floor(Double.parseDouble(up) * USER_HZ) - 1);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /** A run whose first process {@code root} was started after {@code since} (ticks); records it in {@code dir}. */
  static JobProcesses started(Path dir, long root, long since) {
    long start = ProcessTree.read(root).map(ProcessTree.Proc::start).orElse(-1L);
    JobProcesses j = new JobProcesses(dir.resolve(LIVE_FILE), root, start, since);
    j.save();
    return j;
  }

  /** Looks for descendants of the run now and records the new ones. */
  void poll(Collection<Long> otherRoots) {
    boolean grew = false;
    for (ProcessTree.Found f : ProcessTree.descendants(root, since, otherRoots)) {
      grew |= seen.putIfAbsent(f.pid(), f) == null;
    }
    if (grew) {
      save();
    }
  }

  /**
   * Ends the run's processes other than its first (which has exited or is ended with group {@code pgid}): those
   * found now and those seen before that are still there, with SIGTERM, {@code grace} on {@code ticker}, then
   * SIGKILL. Returns them as they were found; releases the group and removes the record.
   */
  List<ProcessTree.Found> end(long pgid, Duration grace, Ticker ticker, Collection<Long> otherRoots) {
    Map<Long, ProcessTree.Found> left = new LinkedHashMap<>();
    for (ProcessTree.Found f : ProcessTree.descendants(root, since, otherRoots)) {
      left.put(f.pid(), f);
    }
    for (ProcessTree.Found f : seen.values()) {
      if (!left.containsKey(f.pid()) && ProcessTree.alive(f.pid(), f.start())) {
        left.put(f.pid(), f);
      }
    }
    List<ProcessTree.Found> found = List.copyOf(left.values());
    try {
      if (!ProcessGroups.members(pgid).isEmpty()) {
        ProcessGroups.terminate(pgid, grace, ticker);
      }
      ProcessTree.end(found, grace, ticker);
    } finally {
      ProcessGroups.release(pgid);
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // a stale record names processes by start time: the next gitm finds none of them alive
      }
    }
    return found;
  }

  /**
   * Ends what a run recorded in {@code dir} by an earlier gitm left (that gitm was killed before it could): the
   * processes of its first process's session and those it had seen, each only while it is the process recorded
   * (same start time). Returns them; removes the record. Nothing when there is no record.
   */
  static List<ProcessTree.Found> endEarlier(Path dir, Duration grace, Ticker ticker) {
    Path file = dir.resolve(LIVE_FILE);
    if (!Files.isRegularFile(file)) {
      return List.of();
    }
    Map<Long, ProcessTree.Found> left = new LinkedHashMap<>();
    try {
      Map<?, ?> m = JSON.readValue(file.toFile(), Map.class);
      long root = ((Number) m.get("pid")).longValue();
      long rootStart = ((Number) m.get("start")).longValue();
      long since = ((Number) m.get("since")).longValue();
      boolean reused = ProcessTree.read(root).map(p -> rootStart >= 0 && p.start() != rootStart).orElse(false);
      if (!reused) {
        // while any process is in session ROOT, the kernel gives the pid ROOT to no other process
        for (ProcessTree.Found f : ProcessTree.session(root, since)) {
          left.put(f.pid(), f);
        }
      }
      for (Object o : (List<?>) m.get("seen")) {
        Map<?, ?> s = (Map<?, ?>) o;
        ProcessTree.Found f = new ProcessTree.Found(((Number) s.get("pid")).longValue(),
            ((Number) s.get("start")).longValue(), String.valueOf(s.get("command")));
        if (ProcessTree.alive(f.pid(), f.start())) {
          left.putIfAbsent(f.pid(), f);
        }
      }
    } catch (RuntimeException e) {
      // an unreadable record (cut short by the kill) names nothing that can be checked
    }
    List<ProcessTree.Found> found = List.copyOf(left.values());
    ProcessTree.end(found, grace, ticker);
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + file, e);
    }
    return found;
  }

  /** The processes as processes.jsonl lists them. */
  static List<Map<String, Object>> describe(List<ProcessTree.Found> procs) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ProcessTree.Found f : procs) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("pid", f.pid());
      m.put("start", f.start());
      m.put("command", f.command());
      out.add(m);
    }
    return out;
  }

  /** Writes the record whole (a temporary file moved over it). */
  private void save() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pid", root);
    m.put("start", rootStart);
    m.put("since", since);
    m.put("seen", describe(List.copyOf(seen.values())));
    Path tmp = file.resolveSibling(LIVE_FILE + ".tmp");
    try {
      Files.writeString(tmp, JSON.writeValueAsString(m) + "\n", StandardCharsets.UTF_8);
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record the job's processes in " + file, e);
    }
  }
}
