import io.gitm.api.Ticker;
import io.gitm.job.LiveJob;
import io.gitm.job.ProcessMetric;
import io.gitm.job.ProcessSpec;
import io.gitm.job.TorchHook;
import io.gitm.levers.SafetyClass;
import io.gitm.levers.Setup;
import io.gitm.search.Gate;
import io.gitm.search.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Live mode's costs on this machine, for docs/pytorch-live.md: the hook's cost per step (no hook, the hook, the hook
 * with its channel open, the channel with gitm reading windows) and the live gate's time to a decision per lever, on
 * the live tests' training script. Run from the repository root after building:
 * {@code java -cp gitm-cli/target/gitm-cli.jar bench/live/LiveMeasure.java [steps] [repeats]}.
 */
public class LiveMeasure {
  static final Path SCRIPT = Path.of("gitm-levers/src/test/resources/io/gitm/job/live/train.py").toAbsolutePath();
  static final String PYTHON = "/usr/bin/python3";

  public static void main(String[] a) throws Exception {
    int steps = a.length > 0 ? Integer.parseInt(a[0]) : 20000;
    int repeats = a.length > 1 ? Integer.parseInt(a[1]) : 5;
    Path dir = Files.createTempDirectory("gitm-live-measure");
    TorchHook hook = TorchHook.install(dir.resolve("python"));
    String[] modes = {"no hook", "hook", "hook + channel", "hook + channel + gitm reading windows"};
    Map<String, List<Double>> perStep = new TreeMap<>();
    for (int r = 0; r < repeats; r++) {
      for (String m : modes) {
        perStep.computeIfAbsent(m, k -> new ArrayList<>()).add(stepMicros(m, dir.resolve(m.replace(' ', '_') + r),
            hook, steps));
      }
    }
    System.out.printf(Locale.ROOT, "per-step cost, %d steps of train.py --work 0 --threads 1, %d runs each"
        + " (median, min-max, microseconds per step)%n", steps, repeats);
    for (String m : modes) {
      double[] v = perStep.get(m).stream().mapToDouble(Double::doubleValue).sorted().toArray();
      System.out.printf(Locale.ROOT, "  %-40s %8.1f  (%.1f-%.1f)%n", m, v[v.length / 2], v[0], v[v.length - 1]);
    }
    gateTimes(dir.resolve("gate"), hook, repeats);
  }

  static ProcessSpec spec(Path dir, int threads, int work, int steps) throws Exception {
    Files.createDirectories(dir);
    Map<String, String> env = new TreeMap<>(ProcessSpec.environment(System.getenv(), List.of("PATH", "HOME"),
        List.of()));
    return new ProcessSpec(List.of(PYTHON, SCRIPT.toString(), "--threads", String.valueOf(threads), "--work",
        String.valueOf(work), "--steps", String.valueOf(steps), "--out", dir.resolve("out.json").toString(), "--stop",
        dir.resolve("stop").toString()), false, dir, env, new ProcessMetric(ProcessMetric.Kind.STEPS, null, null, true,
        null), List.of(), 1e-3, 0, null);
  }

  static double stepMicros(String mode, Path dir, TorchHook hook, int steps) throws Exception {
    ProcessSpec s = spec(dir, 1, 0, steps);
    Path out = dir.resolve("out.json");
    if (mode.endsWith("windows")) {
      try (LiveJob job = LiveJob.start(s, dir, Ticker.system(), hook, LiveJob.Options.defaults().withSteps(200, 0))) {
        while (!Files.exists(out) && job.alive()) {
          job.window("measure");
        }
      } catch (io.gitm.job.TrialFailure e) {
        // the job ended its steps while a window waited: what it wrote is the measurement
      }
    } else {
      ProcessBuilder pb = new ProcessBuilder(s.argv()).directory(dir.toFile()).inheritIO();
      pb.environment().clear();
      pb.environment().putAll(s.environment());
      if (!mode.equals("no hook")) {
        Path hd = Files.createDirectories(dir.resolve("hook"));
        pb.environment().putAll(hook.environment(hd, null));
        if (mode.contains("channel")) {
          Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
          Path token = dir.resolve("token");
          Files.writeString(token, "0123456789abcdef0123456789abcdef");
          Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
          pb.environment().put("GITM_HOOK_SOCKET", dir.resolve("s").toString());
          pb.environment().put("GITM_HOOK_TOKEN_FILE", token.toString());
        }
      }
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
      if (pb.start().waitFor() != 0) {
        throw new IllegalStateException(mode + ": the job failed");
      }
    }
    for (int i = 0; i < 200 && !Files.exists(out); i++) {
      Thread.sleep(50);
    }
    String json = Files.readString(out);
    double seconds = Double.parseDouble(json.replaceAll(".*\"seconds\": ([0-9.e-]+).*", "$1").strip());
    return seconds / steps * 1e6;
  }

  static void gateTimes(Path dir, TorchHook hook, int repeats) throws Exception {
    int cpus = Runtime.getRuntime().availableProcessors();
    int over = Math.max(32, 16 * cpus);
    Setup fit = lever("threads=" + cpus);
    Object[][] trials = {{"threads=" + cpus + " (from " + over + ")", Setup.shipped(), fit},
        {"threads=" + 4 * over + " (from " + cpus + ")", fit, lever("threads=" + 4 * over)},
        {"tf32 on a CPU (no effect)", fit, lever("threads=" + cpus + ",tf32")},
        {"cudnn-benchmark on a CPU (no effect)", fit, lever("threads=" + cpus + ",cudnn-benchmark")}};
    Gate gate = new Gate(Ticker.system(), Gate.Options.defaults().withPairs(6).withWarmupBlocks(0));
    System.out.printf(Locale.ROOT, "live gate, train.py --work 10 (starts with %d threads on %d CPUs), windows of 20"
        + " steps, 5 warm-up steps after a switch, sequential gate of at most %d pairs%n", over, cpus,
        gate.options().maxPairs());
    for (int r = 0; r < repeats; r++) {
      Path d = dir.resolve("r" + r);
      try (LiveJob job = LiveJob.start(spec(d, over, 10, 0), d, Ticker.system(), hook,
          LiveJob.Options.defaults().withSteps(20, 5))) {
        job.window("start-up");
        for (Object[] t : trials) {
          Verdict v = gate.judge(job, (Setup) t[1], (Setup) t[2], SafetyClass.B, 1e-3);
          job.kept(v.outcome() == Verdict.Outcome.KEPT ? (Setup) t[2] : (Setup) t[1]);
          System.out.printf(Locale.ROOT, "  %-40s %-16s gain %.3f  %2d pairs  %5.1f s%n", t[0], v.outcome(), v.gain(),
              v.anchorSamples().length, v.wallNanos() / 1e9);
        }
        Files.writeString(d.resolve("stop"), "");
      }
    }
  }

  static Setup lever(String items) {
    return Setup.shipped().withEnvironment(TorchHook.LEVERS_VARIABLE, items);
  }
}
