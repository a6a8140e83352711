package io.gitm.cli;

import io.gitm.testkit.FakeTicker;
import io.gitm.testkit.SteppedWorkload;
import io.gitm.testkit.TickerClock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code gitm run} on a wall clock that only the workload moves: each step of a built-in workload (in the profile,
 * the gates' blocks and the "after" trace) takes {@link #STEP} of wall time whatever the machine's speed, and the
 * journal's calendar clock reads the same ticker, so a seeded run does the same phases and trials on any machine.
 * A run may also pause in its first step once its journal holds some trials and its clock has passed some time,
 * after writing a marker file, so that a test kills or stops it at a known point rather than after a guessed sleep.
 */
final class SteppedRuns {
  /** Wall time one step of the workload takes: about what a step of hft-lob takes on an idle 2-core machine. */
  static final Duration STEP = Duration.ofMillis(50);

  private SteppedRuns() {}

  /**
   * Where a run pauses: in its first step once a journal under {@code runs} holds {@code trials} trials more than it
   * did when {@code after} had passed on its clock (so that the last of them ended after it); {@code marker} is
   * written then.
   */
  record Pause(Path runs, int trials, Duration after, Path marker) {
    String arg() {
      return "--pause=" + trials + "," + after.toMillis() + "," + runs + "," + marker;
    }

    static Pause parse(String arg) {
      String[] p = arg.substring("--pause=".length()).split(",", 4);
      return new Pause(Path.of(p[2]), Integer.parseInt(p[0]), Duration.ofMillis(Long.parseLong(p[1])), Path.of(p[3]));
    }

    int journaledTrials() {
      if (!Files.isDirectory(runs)) {
        return 0;
      }
      int most = 0;
      try (Stream<Path> s = Files.list(runs)) {
        for (Path run : s.toList()) {
          Path j = run.resolve("journal.jsonl");
          if (Files.isRegularFile(j)) {
            most = Math.max(most, (int) Files.readAllLines(j).stream().filter(l -> l.contains("\"type\":\"trial\""))
                .count());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return most;
    }
  }

  /** Clocks moved by the workload's steps from {@code epoch}; the run pauses at {@code pause} when given. */
  static RunClocks clocks(Instant epoch, Pause pause) {
    return clocks(epoch, pause, STEP, Duration.ZERO);
  }

  /**
   * Clocks moved by {@code step} per step of the workload and by {@code firstOpen} when its first session opens
   * (its dataset made), from {@code epoch}; the run pauses at {@code pause} when given.
   */
  static RunClocks clocks(Instant epoch, Pause pause, Duration step, Duration firstOpen) {
    FakeTicker wall = new FakeTicker();
    boolean[] paused = {pause == null};
    int[] before = {-1};
    return new RunClocks(wall, new TickerClock(wall, epoch), w -> new SteppedWorkload(w, wall, step, firstOpen,
        () -> {
          if (paused[0] || wall.nanos() < pause.after().toNanos()) {
            return;
          }
          int now = pause.journaledTrials();
          if (before[0] < 0) {
            before[0] = now;
          }
          if (now - before[0] >= pause.trials()) {
            paused[0] = true;
            hold(pause.marker());
          }
        }));
  }

  /** The CLI run in-process on stepped clocks. */
  static CliResult run(String... args) {
    return run(Instant.now(), args);
  }

  /**
   * The CLI run in-process on stepped clocks from {@code epoch} (for a resume: after the interrupted run's last
   * journal entry, which stepped clocks may have put later than now).
   */
  static CliResult run(Instant epoch, String... args) {
    return run(clocks(epoch, null), args);
  }

  /** The CLI run in-process on clocks moved by {@code step} per step and {@code firstOpen} for the first session. */
  static CliResult run(Duration step, Duration firstOpen, String... args) {
    return run(clocks(Instant.now(), null, step, firstOpen), args);
  }

  private static CliResult run(RunClocks clocks, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    RunClocks.use(clocks);
    try {
      int code = Main.execute(new PrintWriter(out), new PrintWriter(err), args);
      return new CliResult(code, out.toString(), err.toString());
    } finally {
      RunClocks.use(RunClocks.SYSTEM);
    }
  }

  /** The java command line that runs {@code gitm args} on stepped clocks in a process of its own. */
  static List<String> command(Pause pause, String... args) {
    List<String> cmd = new ArrayList<>(interruptible());
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(SteppedRuns.class.getName());
    if (pause != null) {
      cmd.add(pause.arg());
    }
    cmd.addAll(List.of(args));
    return cmd;
  }

  /**
   * The prefix that starts a command with Ctrl-C's default action: {@code env --default-signal=INT} where the host's
   * {@code env} has it, else nothing. A test JVM started in the background (by a shell without job control, as a CI
   * runner or {@code ./run-tests &} does) ignores SIGINT, its children inherit that, and a JVM that starts ignoring
   * SIGINT keeps ignoring it: a Ctrl-C sent to the child would then test nothing.
   */
  static List<String> interruptible() {
    return INTERRUPTIBLE;
  }

  private static final List<String> INTERRUPTIBLE = probeDefaultSignal();

  private static List<String> probeDefaultSignal() {
    List<String> prefix = List.of("env", "--default-signal=INT");
    try {
      Process p = new ProcessBuilder(concat(prefix, List.of("true"))).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor() == 0 ? prefix : List.of();
    } catch (IOException e) {
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** {@code [--pause=TRIALS,MILLIS,RUNS,MARKER] gitm-arguments...}: gitm on stepped clocks. */
  public static void main(String[] args) {
    Pause pause = args.length > 0 && args[0].startsWith("--pause=") ? Pause.parse(args[0]) : null;
    String[] rest = pause == null ? args : List.of(args).subList(1, args.length).toArray(String[]::new);
    RunClocks.use(clocks(Instant.now(), pause));
    Main.main(rest);
  }

  /** Writes {@code marker} and waits until interrupted (a stop) or killed; an interrupt is passed on. */
  private static void hold(Path marker) {
    try {
      Files.writeString(marker, "paused\n");
      Thread.sleep(Duration.ofDays(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
