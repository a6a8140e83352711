package io.gitm.os;

import io.gitm.api.Ticker;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * The processes a job started, wherever they went, on Linux. gitm makes itself a child subreaper
 * ({@code prctl(PR_SET_CHILD_SUBREAPER)}, bound once with {@code java.lang.foreign}), so a process whose parent exits
 * is re-parented to gitm rather than to init, even one that made a new session ({@code setsid}) and so left the job's
 * process group. A job's descendants are then: the processes of its session, the descendants of its first process,
 * and the processes re-parented to gitm outside gitm's own session that started after the job did (with their
 * descendants), read from {@code /proc/<pid>/stat}. A process is named by its pid and its start time (clock ticks
 * after boot), so that a pid the kernel has given to another process since is never taken for it.
 */
public final class ProcessTree {
  private static final int PR_SET_CHILD_SUBREAPER = 36;
  private static final int WNOHANG = 1;
  private static final Natives NATIVES = Natives.load();
  private static final long SELF = ProcessHandle.current().pid();

  private ProcessTree() {
  }

  /** A process as {@code /proc/<pid>/stat} shows it: ids, start time in clock ticks after boot, state letter. */
  public record Proc(long pid, long ppid, long pgid, long sid, long start, char state) {
    boolean zombie() {
      return state == 'Z' || state == 'X';
    }
  }

  /** A process of a job, as recorded: its pid, start time and command line. */
  public record Found(long pid, long start, String command) {}

  /**
   * Makes gitm a child subreaper (once; later calls say whether it is one). Returns false where the kernel refuses
   * or this is not Linux: descendants that leave the job's session and outlive their parent are then out of reach.
   */
  public static synchronized boolean subreaper() {
    if (NATIVES.prctl == null) {
      return false;
    }
    if (NATIVES.isSubreaper) {
      return true;
    }
    try {
      int rc = (int) NATIVES.prctl.invokeExact(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
      NATIVES.isSubreaper = rc == 0;
    } catch (Throwable t) {
      NATIVES.isSubreaper = false;
    }
    return NATIVES.isSubreaper;
  }

  /** Every process {@code /proc} lists now, by pid. */
  public static Map<Long, Proc> snapshot() {
    Map<Long, Proc> out = new HashMap<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> isPid(p.getFileName()))) {
      for (Path p : procs) {
        read(Long.parseLong(p.getFileName().toString())).ifPresent(x -> out.put(x.pid(), x));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc: " + e.getMessage(), e);
    }
    return out;
  }

  /** Process {@code pid} now, or empty when there is none. */
  public static Optional<Proc> read(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
    } catch (IOException gone) {
      return Optional.empty();
    }
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
    // priority nice threads itrealvalue starttime: comm may hold spaces and parentheses, so read after the last ')'
    int close = stat.lastIndexOf(')');
    if (close < 0 || close + 2 >= stat.length()) {
      return Optional.empty();
    }
    String[] f = stat.substring(close + 2).split(" ");
    if (f.length < 20) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Proc(pid, Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
          Long.parseLong(f[19]), f[0].charAt(0)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Whether the process named by {@code pid} and {@code start} is still there and not a zombie. */
  public static boolean alive(long pid, long start) {
    return read(pid).map(p -> p.start() == start && !p.zombie()).orElse(false);
  }

  /** A process's command line (its arguments joined by spaces), else its name, else an empty string. */
  public static String commandLine(long pid) {
    Path dir = Path.of("/proc", Long.toString(pid));
    try {
      byte[] b = Files.readAllBytes(dir.resolve("cmdline"));
      int n = b.length;
      while (n > 0 && b[n - 1] == 0) {
        n--;
      }
      if (n > 0) {
        for (int i = 0; i < n; i++) {
          if (b[i] == 0) {
            b[i] = ' ';
          }
        }
        return new String(b, 0, Math.min(n, 4096), StandardCharsets.UTF_8);
      }
      return "[" + Files.readString(dir.resolve("comm"), StandardCharsets.UTF_8).strip() + "]";
    } catch (IOException gone) {
      return "";
    }
  }

  /**
   * The live processes of the job whose first process is {@code root} (started at {@code rootStart}, in a session of
   * its own), other than {@code root} itself: its session's, its descendants, and the processes re-parented to gitm
   * outside gitm's session that started after it, with theirs. {@code otherRoots} are the first processes of other
   * jobs of gitm, whose processes are theirs.
   */
  public static List<Found> descendants(long root, long rootStart, Collection<Long> otherRoots) {
    Map<Long, Proc> all = snapshot();
    Proc self = all.get(SELF);
    long ownSession = self == null ? -1 : self.sid();
    Map<Long, List<Proc>> children = new HashMap<>();
    for (Proc p : all.values()) {
      children.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p);
    }
    Deque<Proc> todo = new ArrayDeque<>();
    for (Proc p : all.values()) {
      boolean session = p.sid() == root && p.start() >= rootStart;
      boolean adopted = p.ppid() == SELF && p.sid() != ownSession && p.start() >= rootStart
          && !otherRoots.contains(p.pid());
      if (session || adopted || p.ppid() == root && p.start() >= rootStart) {
        todo.add(p);
      }
    }
    Map<Long, Found> out = new LinkedHashMap<>();
    while (!todo.isEmpty()) {
      Proc p = todo.poll();
      if (p.pid() == root || p.pid() == SELF || p.zombie() || out.containsKey(p.pid())) {
        continue;
      }
      out.put(p.pid(), new Found(p.pid(), p.start(), commandLine(p.pid())));
      todo.addAll(children.getOrDefault(p.pid(), List.of()));
    }
    return List.copyOf(out.values());
  }

  /**
   * The live processes of session {@code sid} that started at or after {@code start}: what is left of a job whose
   * first process was {@code sid} (a session leader) when gitm could not end it, e.g. after gitm was killed.
   */
  public static List<Found> session(long sid, long start) {
    List<Found> out = new ArrayList<>();
    for (Proc p : snapshot().values()) {
      if (p.sid() == sid && p.start() >= start && !p.zombie() && p.pid() != SELF) {
        out.add(new Found(p.pid(), p.start(), commandLine(p.pid())));
      }
    }
    return out;
  }

  /**
   * Ends {@code procs}: SIGTERM to each, up to {@code grace} (on {@code ticker}, which must follow the host's real
   * time) for them to exit, SIGKILL to those left, and up to 5 s more until none is left; a process that is no longer
   * the one recorded (another start time) is left alone. Those re-parented to gitm are reaped. Returns the ones that
   * needed SIGKILL.
   */
  public static List<Found> end(List<Found> procs, Duration grace, Ticker ticker) {
    boolean interrupted = Thread.interrupted();
    try {
      signalAll(procs, ProcessGroups.SIGTERM);
      waitGone(procs, grace, ticker);
      List<Found> left = procs.stream().filter(f -> alive(f.pid(), f.start())).toList();
      if (!left.isEmpty()) {
        signalAll(left, ProcessGroups.SIGKILL);
        waitGone(left, Duration.ofSeconds(5), ticker);
      }
      reap(procs);
      return left;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void signalAll(List<Found> procs, int signal) {
    for (Found f : procs) {
      if (f.pid() > 1 && f.pid() != SELF && alive(f.pid(), f.start())) {
        ProcessGroups.signalProcess(f.pid(), signal);
      }
    }
  }

  private static void waitGone(List<Found> procs, Duration d, Ticker ticker) {
    long until = ticker.nanos() + d.toNanos();
    while (ticker.nanos() < until && procs.stream().anyMatch(f -> alive(f.pid(), f.start()))) {
      reap(procs);
      LockSupport.parkNanos(20_000_000L);
    }
  }

  /** Collects the exit status of those of {@code procs} that are gitm's children by adoption and have exited. */
  private static void reap(List<Found> procs) {
    if (NATIVES.waitpid == null) {
      return;
    }
    for (Found f : procs) {
      Optional<Proc> p = read(f.pid());
      if (p.isPresent() && p.get().ppid() == SELF && p.get().zombie() && p.get().start() == f.start()) {
        try {
          int unused = (int) NATIVES.waitpid.invokeExact((int) f.pid(), MemorySegment.NULL, WNOHANG);
        } catch (Throwable ignored) {
          // left as a zombie until gitm exits
        }
      }
    }
  }

  private static boolean isPid(Path name) {
    String s = name.toString();
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!Character.isDigit(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** libc's {@code prctl} and {@code waitpid}, or nulls where they cannot be bound; whether gitm is a subreaper. */
  private static final class Natives {
    final MethodHandle prctl;
    final MethodHandle waitpid;
    boolean isSubreaper;

    private Natives(MethodHandle prctl, MethodHandle waitpid) {
      this.prctl = prctl;
      this.waitpid = waitpid;
    }

    static Natives load() {
      if (!System.getProperty("os.name", "?").toLowerCase(Locale.ROOT).contains("linux")) {
        return new Natives(null, null);
      }
      try {
        Linker linker = Linker.nativeLinker();
        var lookup = linker.defaultLookup();
        MethodHandle prctl = lookup.find("prctl").map(s -> linker.downcallHandle(s, FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(1))).orElse(null);
        MethodHandle waitpid = lookup.find("waitpid").map(s -> linker.downcallHandle(s, FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT))).orElse(null);
        return new Natives(prctl, waitpid);
      } catch (RuntimeException | LinkageError e) {
        return new Natives(null, null);
      }
    }
  }
}
