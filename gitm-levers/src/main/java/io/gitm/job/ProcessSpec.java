package io.gitm.job;

import io.gitm.job.output.OutputFile;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A black-box job: the command gitm starts for every run, where, with which environment, how its metric is read and
 * which outputs must stay equivalent. gitm never sees more of the job than this.
 *
 * @param command the argument vector (program first), run without a shell; with {@code shell}, one command line
 *     given to {@code /bin/sh -c}
 * @param workdir where the job runs; relative output and metric files resolve here
 * @param environment the whole environment the job receives before any lever: the allow-listed variables of gitm's
 *     own environment and those given with {@code --env}
 * @param outputs files compared for equivalence after each run (bit-identical under class A, within {@code rtol} and
 *     {@code atol} under class B)
 * @param rtol relative tolerance for class-B levers (numpy's allclose: |a-b| <= max(atol, rtol*max(|a|,|b|)))
 * @param timeout longest a single run may take before its process group is killed; null: chosen from the baseline
 */
public record ProcessSpec(List<String> command, boolean shell, Path workdir, Map<String, String> environment,
    ProcessMetric metric, List<OutputFile> outputs, double rtol, double atol, Duration timeout) {
  /** Variables of gitm's own environment a job receives unless the user says otherwise. */
  public static final List<String> DEFAULT_ALLOWED = List.of("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE",
      "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM", "SHELL", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME",
      "VIRTUAL_ENV", "CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES");

  public ProcessSpec {
    if (command == null || command.isEmpty() || command.getFirst() == null || command.getFirst().isBlank()) {
      throw new IllegalArgumentException("--cmd needs a program (everything after --cmd is the job's argument vector)");
    }
    command = List.copyOf(command);
    if (workdir == null) {
      throw new IllegalArgumentException("a process job needs a working directory");
    }
    workdir = workdir.toAbsolutePath().normalize();
    environment = java.util.Collections.unmodifiableMap(new TreeMap<>(environment == null ? Map.of() : environment));
    if (metric == null) {
      throw new IllegalArgumentException("a process job needs a metric");
    }
    outputs = List.copyOf(outputs == null ? List.of() : outputs);
    if (!(rtol >= 0) || Double.isInfinite(rtol) || !(atol >= 0) || Double.isInfinite(atol)) {
      throw new IllegalArgumentException("--rtol and --atol must be finite numbers >= 0, got " + rtol + " and " + atol);
    }
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("--timeout must be positive, got " + timeout);
    }
  }

  /**
   * The environment a job receives from {@code parent} (gitm's own): the allow-listed names that are set there, and
   * {@code given} entries of {@code NAME=VALUE} (set) or {@code NAME} (passed from the parent, which must have it).
   */
  public static Map<String, String> environment(Map<String, String> parent, List<String> allowed, List<String> given) {
    Map<String, String> env = new TreeMap<>();
    for (String name : allowed) {
      String v = parent.get(name);
      if (v != null) {
        env.put(name, v);
      }
    }
    for (String g : given == null ? List.<String>of() : given) {
      int eq = g.indexOf('=');
      String name = eq < 0 ? g : g.substring(0, eq);
      if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new IllegalArgumentException("--env " + g + ": \"" + name + "\" is not a variable name");
      }
      if (eq < 0) {
        String v = parent.get(name);
        if (v == null) {
          throw new IllegalArgumentException("--env " + name + ": gitm's environment has no " + name
              + " to pass on (give NAME=VALUE to set it)");
        }
        env.put(name, v);
      } else {
        env.put(name, g.substring(eq + 1));
      }
    }
    return env;
  }

  /** The floor of the output comparison: the magnitude under which a difference counts as absolute ({@code atol}). */
  public double floor() {
    return rtol > 0 && atol > 0 ? Math.max(1e-300, atol / rtol) : 1e-12;
  }

  /**
   * Checks that the job can be started at all: the working directory exists, and (without a shell) the program is an
   * executable file, found on the job's {@code PATH} when it names no folder. Returns the program's path.
   *
   * @throws IllegalArgumentException with a one-line message otherwise
   */
  public Path checkStartable() {
    if (!Files.isDirectory(workdir)) {
      throw new IllegalArgumentException("--workdir " + workdir + " is not a folder");
    }
    String program = shell ? "/bin/sh" : command.getFirst();
    if (program.contains("/")) {
      Path p = workdir.resolve(program);
      if (!Files.exists(p)) {
        throw new IllegalArgumentException("program " + program + " does not exist");
      }
      if (Files.isDirectory(p) || !Files.isExecutable(p)) {
        throw new IllegalArgumentException("program " + program + " is not an executable file");
      }
      return p;
    }
    String path = environment.getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path p = Path.of(dir).resolve(program);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
    }
    throw new IllegalArgumentException("program " + program + " was not found on the job's PATH ("
        + (path.isEmpty() ? "empty" : path) + ")");
  }

  /** The argument vector that runs the job (before gitm's own wrappers). */
  public List<String> argv() {
    if (!shell) {
      return command;
    }
    return List.of("/bin/sh", "-c", String.join(" ", command));
  }

  /** The spec as the run folder keeps it ({@code process.json}), for reports and {@code --resume}. */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", command);
    m.put("shell", shell);
    m.put("workdir", workdir.toString());
    m.put("environment", environment);
    Map<String, Object> metricMap = new LinkedHashMap<>();
    metricMap.put("kind", metric.kind().name());
    metricMap.put("regex", metric.regex());
    metricMap.put("file", metric.file());
    metricMap.put("higherIsBetter", metric.higherIsBetter());
    metricMap.put("name", metric.name());
    m.put("metric", metricMap);
    List<String> outs = new ArrayList<>();
    for (OutputFile o : outputs) {
      outs.add(o.path() + (o.format() == OutputFile.Format.AUTO ? "" : ":" + o.format().name().toLowerCase()));
    }
    m.put("outputs", outs);
    m.put("rtol", rtol);
    m.put("atol", atol);
    m.put("timeoutSeconds", timeout == null ? null : timeout.toMillis() / 1000.0);
    return m;
  }

  @SuppressWarnings("unchecked")
  public static ProcessSpec fromJson(Map<String, Object> m) {
    try {
      Map<String, Object> mm = (Map<String, Object>) m.get("metric");
      ProcessMetric metric = new ProcessMetric(ProcessMetric.Kind.valueOf((String) mm.get("kind")),
          (String) mm.get("regex"), (String) mm.get("file"), (Boolean) mm.get("higherIsBetter"),
          (String) mm.get("name"));
      List<OutputFile> outs = new ArrayList<>();
      for (Object o : (List<Object>) m.get("outputs")) {
        outs.add(OutputFile.parse((String) o));
      }
      Object t = m.get("timeoutSeconds");
      return new ProcessSpec((List<String>) m.get("command"), (Boolean) m.get("shell"),
          Path.of((String) m.get("workdir")), (Map<String, String>) m.get("environment"), metric, outs,
          ((Number) m.get("rtol")).doubleValue(), ((Number) m.get("atol")).doubleValue(),
          t == null ? null : Duration.ofMillis(Math.round(((Number) t).doubleValue() * 1000)));
    } catch (ClassCastException | NullPointerException e) {
      throw new IllegalArgumentException("process.json is not a process job's spec: " + e.getMessage(), e);
    }
  }

  public ProcessSpec withTimeout(Duration t) {
    return new ProcessSpec(command, shell, workdir, environment, metric, outputs, rtol, atol, t);
  }
}
