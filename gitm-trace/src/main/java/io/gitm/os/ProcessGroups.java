package io.gitm.os;

import io.gitm.api.Ticker;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Process groups of the jobs gitm starts, on Linux: signals to a whole group through libc's {@code kill} with a
 * negative pid (bound once with {@code java.lang.foreign}), the group's members read from {@code /proc/<pid>/stat},
 * and a registry of the groups that are live, so that whatever stops gitm (a trial's timeout, Ctrl-C, a second Ctrl-C
 * that halts at once) can end them all. A member that made itself a new session ({@code setsid}) has left the group;
 * {@link ProcessTree} finds it.
 */
public final class ProcessGroups {
  public static final int SIGTERM = 15;
  public static final int SIGKILL = 9;

  private static final Binding BINDING = Binding.load();
  private static final Set<Long> LIVE = ConcurrentHashMap.newKeySet();

  private ProcessGroups() {
  }

  public static boolean supported() {
    return BINDING.reason == null;
  }

  /** Why process groups cannot be signalled here, or an empty string where they can. */
  public static String unsupportedReason() {
    return BINDING.reason == null ? "" : BINDING.reason;
  }

  /** Marks group {@code pgid} as gitm's and live, until {@link #release}. */
  public static void register(long pgid) {
    checkGroup(pgid);
    LIVE.add(pgid);
  }

  public static void release(long pgid) {
    LIVE.remove(pgid);
  }

  /** The groups registered and not yet released. */
  public static Set<Long> live() {
    return Set.copyOf(LIVE);
  }

  /**
   * Sends {@code signal} to every process of group {@code pgid}; returns false when the group has no process left
   * (ESRCH). Any other refusal is an {@link IllegalStateException} naming the error.
   */
  public static boolean signal(long pgid, int signal) {
    checkGroup(pgid);
    Binding b = BINDING.require();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment state = a.allocate(b.captureLayout);
      int rc = (int) b.kill.invokeExact(state, (int) -pgid, signal);
      if (rc == 0) {
        return true;
      }
      int errno = (int) b.errno.get(state, 0L);
      if (errno == 3) {
        return false;
      }
      throw new IllegalStateException("kill(-" + pgid + ", " + signal + ") failed: " + switch (errno) {
        case 1 -> "EPERM (the group holds a process gitm may not signal)";
        case 22 -> "EINVAL (no such signal)";
        default -> "errno " + errno;
      });
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Sends {@code signal} to process {@code pid} alone; returns false when there is no such process or gitm may not
   * signal it.
   */
  public static boolean signalProcess(long pid, int signal) {
    if (pid <= 1 || pid > Integer.MAX_VALUE || pid == ProcessHandle.current().pid()) {
      throw new IllegalArgumentException("not a process gitm may signal: " + pid);
    }
    Binding b = BINDING.require();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment state = a.allocate(b.captureLayout);
      return (int) b.kill.invokeExact(state, (int) pid, signal) == 0;
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** The pids whose process group is {@code pgid}, read from {@code /proc}; zombies are left out. */
  public static List<Long> members(long pgid) {
    checkGroup(pgid);
    List<Long> out = new ArrayList<>();
    try (DirectoryStream<Path> procs =
        Files.newDirectoryStream(Path.of("/proc"), p -> isPid(p.getFileName().toString()))) {
      for (Path p : procs) {
        String stat;
        try {
          stat = Files.readString(p.resolve("stat"), StandardCharsets.UTF_8);
        } catch (IOException gone) {
          continue;
        }
        // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'
        int close = stat.lastIndexOf(')');
        if (close < 0) {
          continue;
        }
        String[] f = stat.substring(close + 2).split(" ");
        if (f.length > 2 && !f[0].equals("Z") && Long.parseLong(f[2]) == pgid) {
          out.add(Long.parseLong(p.getFileName().toString()));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc: " + e.getMessage(), e);
    }
    return out;
  }

  /**
   * CPU time (user + system, in clock ticks) each member of group {@code pgid} has used so far, by pid: two readings
   * tell which members were busy in between.
   */
  public static Map<Long, Long> cpuTicks(long pgid) {
    checkGroup(pgid);
    Map<Long, Long> out = new HashMap<>();
    for (long pid : members(pgid)) {
      try {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // after the comm: state(0) ppid(1) pgrp(2) session(3) tty(4) tpgid(5) flags(6) minflt(7) cminflt(8)
        // majflt(9) cmajflt(10) utime(11) stime(12)
        out.put(pid, Long.parseLong(f[11]) + Long.parseLong(f[12]));
      } catch (IOException | RuntimeException gone) {
        // exited between the listing and the read
      }
    }
    return out;
  }

  /**
   * Ends group {@code pgid}: SIGTERM, up to {@code grace} for its processes to exit, then SIGKILL, and waits (up to
   * 5 s more) until none is left. Returns the pids that were still there after the grace (killed), empty when the
   * group ended on SIGTERM. Releases the group. The grace is measured on {@code ticker}, which must follow the
   * host's real time (the wait sleeps between readings).
   */
  public static List<Long> terminate(long pgid, Duration grace, Ticker ticker) {
    // the interrupt is held back while waiting (parkNanos would not wait with it set) and restored after
    boolean interrupted = Thread.interrupted();
    try {
      if (!signal(pgid, SIGTERM)) {
        return List.of();
      }
      long until = ticker.nanos() + grace.toNanos();
      while (ticker.nanos() < until && !members(pgid).isEmpty()) {
        pause();
      }
      List<Long> left = members(pgid);
      if (!left.isEmpty()) {
        signal(pgid, SIGKILL);
        long hard = ticker.nanos() + Duration.ofSeconds(5).toNanos();
        while (ticker.nanos() < hard && !members(pgid).isEmpty()) {
          pause();
        }
      }
      return left;
    } finally {
      release(pgid);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Kills every live group at once (SIGKILL, no grace): for a stop that cannot wait. */
  public static void killAll() {
    for (long g : live()) {
      try {
        signal(g, SIGKILL);
      } catch (RuntimeException ignored) {
        // best effort: the process is going away
      }
      release(g);
    }
  }

  /** Sleeps 20 ms without giving up on an interrupt (an interrupted caller still wants the group gone). */
  private static void pause() {
    LockSupport.parkNanos(20_000_000L);
  }

  private static boolean isPid(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      if (!Character.isDigit(name.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static void checkGroup(long pgid) {
    if (pgid <= 1 || pgid > Integer.MAX_VALUE || pgid == OWN_GROUP) {
      throw new IllegalArgumentException("not a process group id gitm may signal: " + pgid
          + (pgid == OWN_GROUP ? " (gitm's own)" : ""));
    }
  }

  /** gitm's own process group, never signalled; -1 when unknown. */
  private static final long OWN_GROUP = ownGroup();

  private static long ownGroup() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.UTF_8);
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[2]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private record Binding(MethodHandle kill, StructLayout captureLayout, VarHandle errno, String reason) {
    Binding require() {
      if (reason != null) {
        throw new UnsupportedOperationException("process groups are unsupported here: " + reason);
      }
      return this;
    }

    static Binding load() {
      String os = System.getProperty("os.name", "?");
      if (!os.toLowerCase(Locale.ROOT).contains("linux")) {
        return new Binding(null, null, null, "process groups are handled on Linux only; this is " + os);
      }
      try {
        Linker linker = Linker.nativeLinker();
        MemorySegment kill = linker.defaultLookup().find("kill").orElse(null);
        if (kill == null) {
          return new Binding(null, null, null, "libc exports no kill");
        }
        StructLayout capture = Linker.Option.captureStateLayout();
        VarHandle errno = capture.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        MethodHandle h = linker.downcallHandle(kill, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT), Linker.Option.captureCallState("errno"));
        return new Binding(h, capture, errno, null);
      } catch (RuntimeException | LinkageError e) {
        return new Binding(null, null, null, "binding libc's kill failed: " + e);
      }
    }
  }
}
