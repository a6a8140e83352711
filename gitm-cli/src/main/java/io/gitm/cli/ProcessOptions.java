package io.gitm.cli;

import io.gitm.job.ProcessMetric;
import io.gitm.job.ProcessSpec;
import io.gitm.job.output.OutputFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** The options of {@code gitm run --cmd}: how to run, measure and compare a black-box job. */
final class ProcessOptions {
  @Option(names = "--cmd", description = "Optimize a black-box process: --cmd PROGRAM [ARGS...] must come last;"
      + " everything after it is the job's argument vector, run without a shell.")
  boolean cmd;

  @Option(names = "--shell", description = "With --cmd: run the command as one line through /bin/sh -c.")
  boolean shell;

  @Option(names = "--live", description = "With --cmd: start the PyTorch job once and steer it while it runs, through"
      + " gitm's Python hook (its step rate is the metric; the levers that switch at a step boundary are tried in"
      + " windows of steps; when the budget ends the job runs on with what was kept).")
  boolean live;

  @Option(names = "--metric", paramLabel = "wall|steps|samples", description = "wall: the job's wall time (the"
      + " default); steps: a PyTorch job's optimizer steps per second after its warm-up steps, counted inside it by"
      + " gitm's Python hook (no regex); samples: its samples per second (DataLoader batch sizes).")
  String metric;

  @Option(names = "--metric-regex", paramLabel = "REGEX",
      description = "Read the metric from the job's stdout (else stderr): the last match; its first group is the"
          + " number.")
  String metricRegex;

  @Option(names = "--metric-file", paramLabel = "PATH",
      description = "Read the metric from a file the job writes (its whole text, or --metric-regex applied to it).")
  String metricFile;

  @Option(names = "--metric-name", paramLabel = "NAME", description = "How reports name the metric (e.g. it/s).")
  String metricName;

  @Option(names = "--higher-is-better", description = "The metric is a rate: higher is better.")
  boolean higher;

  @Option(names = "--lower-is-better", description = "The metric is a time or a cost: lower is better.")
  boolean lower;

  @Option(names = "--output", paramLabel = "PATH[:FORMAT]",
      description = "An output file to compare for equivalence (repeatable; FORMAT: npy, csv, f32, f64, bytes).")
  List<String> outputs = new ArrayList<>();

  @Option(names = "--rtol", paramLabel = "R", defaultValue = "1e-3",
      description = "Relative tolerance of class-B levers on numeric outputs (default: 1e-3).")
  double rtol;

  @Option(names = "--atol", paramLabel = "A", defaultValue = "0",
      description = "Absolute tolerance of class-B levers on numeric outputs (default: 0).")
  double atol;

  @Option(names = "--timeout", paramLabel = "DURATION",
      description = "Longest one run of the job may take before its process group is killed (default: five times"
          + " its slowest baseline run, at least 30s).")
  String timeout;

  @Option(names = "--workdir", paramLabel = "DIR", description = "Where the job runs (default: the current folder).")
  Path workdir;

  @Option(names = "--env", paramLabel = "NAME[=VALUE]",
      description = "Pass NAME from gitm's environment to the job, or set it (repeatable). The job gets only these"
          + " and the allow-list " + "PATH, HOME, USER, LANG, LC_*, TZ, TMPDIR, LD_LIBRARY_PATH, PYTHONPATH, "
          + "VIRTUAL_ENV, CONDA_PREFIX, CUDA_HOME, CUDA_VISIBLE_DEVICES and the like.")
  List<String> env = new ArrayList<>();

  @Option(names = "--no-trace", description = "Do not trace the job with gitm's CUPTI injection library.")
  boolean noTrace;

  @Option(names = "--no-hook", description = "Do not put gitm's Python hook on the job's PYTHONPATH (no step metric,"
      + " framework facts or PyTorch levers).")
  boolean noHook;

  @Option(names = "--kineto", paramLabel = "TRACE.json",
      description = "A PyTorch profiler (Kineto) trace of the job, analyzed and added to the report as extra evidence.")
  List<Path> kineto = new ArrayList<>();

  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

  /** The job's spec from these options and the argument vector after {@code --cmd}. */
  ProcessSpec spec(CommandLine cl, List<String> argv) {
    if (argv.isEmpty()) {
      throw new CommandLine.ParameterException(cl, "--cmd needs a program: gitm run [options] --cmd PROGRAM [ARGS...]");
    }
    if (live) {
      checkLive(cl);
    }
    int kinds = (metric != null ? 1 : 0) + (metricRegex != null && metricFile == null ? 1 : 0)
        + (metricFile != null ? 1 : 0);
    if (kinds > 1) {
      throw new CommandLine.ParameterException(cl, "give one metric: --metric wall, --metric-regex REGEX or"
          + " --metric-file PATH (with an optional --metric-regex applied to the file)");
    }
    if (metric != null && !List.of("wall", "steps", "samples").contains(metric)) {
      throw new CommandLine.ParameterException(cl, "--metric '" + metric + "': give wall, steps or samples (or use"
          + " --metric-regex or --metric-file)");
    }
    if (metric != null && !metric.equals("wall") && noHook) {
      throw new CommandLine.ParameterException(cl, "--metric " + metric + " is counted by gitm's Python hook, which"
          + " --no-hook turns off");
    }
    if (higher && lower) {
      throw new CommandLine.ParameterException(cl, "--higher-is-better and --lower-is-better contradict each other");
    }
    ProcessMetric m;
    try {
      if (metricFile != null || metricRegex != null) {
        if (!higher && !lower) {
          throw new CommandLine.ParameterException(cl, (metricFile != null ? "--metric-file" : "--metric-regex")
              + " needs a direction: --higher-is-better (a rate, e.g. it/s) or --lower-is-better (a time)");
        }
        m = new ProcessMetric(metricFile != null ? ProcessMetric.Kind.FILE : ProcessMetric.Kind.REGEX, metricRegex,
            metricFile, higher, metricName);
      } else if (metric != null && !metric.equals("wall")) {
        if (lower) {
          throw new CommandLine.ParameterException(cl, "--metric " + metric + " is a rate: higher is better");
        }
        m = new ProcessMetric(metric.equals("steps") ? ProcessMetric.Kind.STEPS : ProcessMetric.Kind.SAMPLES, null,
            null, true, metricName);
      } else {
        if (higher) {
          throw new CommandLine.ParameterException(cl, "--metric wall is a time: lower is better");
        }
        m = new ProcessMetric(ProcessMetric.Kind.WALL, null, null, false, metricName);
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, Main.oneLine(e.getMessage()));
    }
    List<OutputFile> outs = new ArrayList<>();
    for (String o : outputs) {
      try {
        outs.add(OutputFile.parse(o));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cl, "--output " + o + ": " + Main.oneLine(e.getMessage()));
      }
    }
    Map<String, String> environment;
    try {
      environment = ProcessSpec.environment(System.getenv(), ProcessSpec.DEFAULT_ALLOWED, env);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, Main.oneLine(e.getMessage()));
    }
    Path dir = workdir != null ? workdir : Path.of("").toAbsolutePath();
    try {
      ProcessSpec s = new ProcessSpec(argv, shell, dir, environment, m, outs, rtol, atol, duration(cl, timeout));
      s.checkStartable();
      return s;
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cl, Main.oneLine(e.getMessage()));
    }
  }

  /** What {@code --live} cannot be given with, refused in one line each; the step metric is implied. */
  private void checkLive(CommandLine cl) {
    String other = metricRegex != null ? "--metric-regex" : metricFile != null ? "--metric-file"
        : metric != null && !metric.equals("steps") ? "--metric " + metric : null;
    if (other != null) {
      throw new CommandLine.ParameterException(cl, "--live measures the job's step rate inside it (gitm's hook): "
          + other + " cannot be used with it");
    }
    if (noHook) {
      throw new CommandLine.ParameterException(cl, "--live steers the job through gitm's Python hook, which --no-hook"
          + " turns off");
    }
    if (!outputs.isEmpty()) {
      throw new CommandLine.ParameterException(cl, "--live compares outputs by a check inside the job (the held"
          + " batch under both settings), not by --output files, which a job that runs on never finishes writing");
    }
    if (timeout != null) {
      throw new CommandLine.ParameterException(cl, "--live runs the job once and never ends it: --timeout has no"
          + " run to limit");
    }
    if (lower) {
      throw new CommandLine.ParameterException(cl, "--live's metric is a rate: higher is better");
    }
    metric = "steps";
  }

  /** Whether any option of a process job was given (they make no sense with --workload). */
  boolean anyGiven() {
    return cmd || shell || live || metric != null || metricRegex != null || metricFile != null || higher || lower
        || !outputs.isEmpty() || timeout != null || workdir != null || !env.isEmpty() || noTrace || noHook || !kineto.isEmpty();
  }

  static Duration duration(CommandLine cl, String text) {
    if (text == null) {
      return null;
    }
    Matcher mm = DURATION.matcher(text.strip());
    if (!mm.matches()) {
      throw new CommandLine.ParameterException(cl,
          "--timeout '" + text + "' is not a duration: use e.g. 90s, 5m, 500ms");
    }
    double v = Double.parseDouble(mm.group(1));
    double ms = v * switch (mm.group(2)) {
      case "ms" -> 1;
      case "s" -> 1000;
      case "m" -> 60_000;
      default -> 3_600_000;
    };
    if (ms < 1) {
      throw new CommandLine.ParameterException(cl, "--timeout must be positive, got " + text);
    }
    return Duration.ofMillis(Math.round(ms));
  }
}
