package io.gitm.job;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * gitm's start-up hook for Python jobs: a {@code sitecustomize} (stdlib only, shipped in this jar) that gitm puts
 * first on the job's {@code PYTHONPATH}. It chains to the job's own {@code sitecustomize}, does nothing until the job
 * imports torch, and then, in the job's main process only, counts its optimizer steps (the metric without a regex),
 * writes framework facts, and applies the framework levers named in {@code GITM_TORCH_LEVERS}. It never raises into
 * the job: a failure of its own goes to {@code hook-error.txt} and it turns itself off.
 *
 * <p>Each run has a hook folder of its own ({@code GITM_HOOK_DIR}); after the run, {@link #read} gives what the hook
 * wrote there: {@code main-<rank>.json} (the process that claimed the rank), {@code processes/<pid>.json} (every
 * process that imported torch), {@code metric.json}, {@code facts.json}, {@code hook-error.txt}.
 */
public final class TorchHook {
  /** The protocol the hook and gitm speak; the hook refuses to act for another ({@code GITM_HOOK_VERSION}). */
  public static final int PROTOCOL = 1;
  /** The variable naming the framework levers the hook applies, e.g. {@code tf32,dl-workers=4}. */
  public static final String LEVERS_VARIABLE = io.gitm.levers.LeverContext.TORCH_LEVERS_VARIABLE;
  /** The hook's files, as shipped under {@code io/gitm/job/hook/} (the resource folder's test holds the list). */
  static final List<String> FILES = List.of("sitecustomize.py", "gitm_torch/__init__.py", "gitm_torch/boot.py",
      "gitm_torch/channel.py", "gitm_torch/facts.py", "gitm_torch/levers.py", "gitm_torch/live.py",
      "gitm_torch/loader.py",
      "gitm_torch/metric.py", "gitm_torch/modules.py", "gitm_torch/safety.py", "gitm_torch/state.py");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Path python;

  private TorchHook(Path python) {
    this.python = python;
  }

  /** Writes the hook's files into {@code folder} (replacing what is there) and returns the hook that uses them. */
  public static TorchHook install(Path folder) {
    try {
      for (String f : FILES) {
        Path target = folder.resolve(f);
        Files.createDirectories(target.getParent());
        try (InputStream in = TorchHook.class.getResourceAsStream("hook/" + f)) {
          if (in == null) {
            throw new IllegalStateException("this build of gitm lacks its Python hook file " + f);
          }
          Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write gitm's Python hook into " + folder, e);
    }
    return new TorchHook(folder);
  }

  /** The folder put first on the job's {@code PYTHONPATH}. */
  public Path python() {
    return python;
  }

  /**
   * The variables that make a run use the hook with its folder {@code runFolder}: {@code PYTHONPATH} with the hook
   * first and the job's own after it, the folder and the protocol.
   */
  public Map<String, String> environment(Path runFolder, String jobPythonPath) {
    Map<String, String> env = new TreeMap<>();
    env.put("PYTHONPATH", python + (jobPythonPath == null || jobPythonPath.isEmpty() ? "" : ":" + jobPythonPath));
    env.put("GITM_HOOK_DIR", runFolder.toString());
    env.put("GITM_HOOK_VERSION", String.valueOf(PROTOCOL));
    return env;
  }

  /**
   * What the hook did with one lever it was asked for.
   *
   * @param applied whether it changed the run (a flag set, a DataLoader's setting changed, modules converted)
   * @param detail what it changed, or why it could not
   */
  public record LeverOutcome(boolean applied, String detail) {}

  /**
   * What the hook wrote in one run's folder.
   *
   * @param torch whether a process of the run imported torch and claimed a rank as its main process
   * @param processes the processes that imported torch (main processes and the others: workers, launchers)
   * @param metric {@code metric.json} of the main process, or null
   * @param facts {@code facts.json} of the main process, or null
   * @param error the hook's own failure ({@code hook-error.txt}), or null
   */
  public record Report(boolean torch, int processes, JsonNode metric, JsonNode facts, String error) {
    static final Report NONE = new Report(false, 0, null, null, null);

    /** Optimizer steps (or top-module forwards) per second after the warm-up steps, if the run made enough. */
    public OptionalDouble stepsPerSecond() {
      return number(metric, "stepsPerSecond");
    }

    /** Samples per second over the same steps (batch sizes of the DataLoader batches seen), if any were seen. */
    public OptionalDouble samplesPerSecond() {
      return number(metric, "samplesPerSecond");
    }

    /** The steps the run made. */
    public long steps() {
      return metric == null || metric.get("steps") == null ? 0 : metric.get("steps").asLong();
    }

    /** Where the steps came from: {@code optimizer}, {@code forward}, or {@code none}. */
    public String stepSource() {
      JsonNode s = metric == null ? null : metric.get("source");
      return s == null || s.isNull() ? "none" : s.asString();
    }

    /** What the hook did with each lever it was asked for, by the hook's lever name. */
    public Map<String, LeverOutcome> levers() {
      Map<String, LeverOutcome> m = new LinkedHashMap<>();
      JsonNode l = facts == null ? null : facts.get("levers");
      if (l != null) {
        for (var e : l.properties()) {
          m.put(e.getKey(), new LeverOutcome(e.getValue().path("applied").asBoolean(false),
              e.getValue().path("detail").asString("")));
        }
      }
      return m;
    }

    /**
     * The facts levers read ({@code torch*} of {@link io.gitm.levers.LeverContext}); empty when no process imported
     * torch, so that every framework lever sees an unknown job.
     */
    public Map<String, Double> leverFacts() {
      Map<String, Double> f = new TreeMap<>();
      if (!torch || facts == null) {
        return f;
      }
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_STEPS, (double) steps());
      number(metric, "dataWaitShare").ifPresent(v -> f.put(io.gitm.levers.LeverContext.FACT_TORCH_DATA_WAIT_SHARE,
          v));
      int map = 0;
      int iterable = 0;
      int fewest = Integer.MAX_VALUE;
      boolean pinned = true;
      boolean persistent = true;
      for (JsonNode l : facts.path("dataloaders")) {
        if ("iterable".equals(l.path("datasetKind").asString(""))) {
          iterable++;
        } else {
          map++;
          fewest = Math.min(fewest, l.path("numWorkers").asInt(0));
        }
        pinned &= l.path("pinMemory").asBoolean(false);
        persistent &= l.path("numWorkers").asInt(0) == 0 || l.path("persistentWorkers").asBoolean(false);
      }
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_MAP_LOADERS, (double) map);
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_ITERABLE_LOADERS, (double) iterable);
      if (map > 0) {
        f.put(io.gitm.levers.LeverContext.FACT_TORCH_LOADER_WORKERS, (double) fewest);
      }
      if (map + iterable > 0) {
        f.put(io.gitm.levers.LeverContext.FACT_TORCH_PIN_MEMORY, pinned ? 1.0 : 0.0);
        f.put(io.gitm.levers.LeverContext.FACT_TORCH_PERSISTENT_WORKERS, persistent ? 1.0 : 0.0);
      }
      JsonNode flags = facts.path("flags");
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_TF32, flags.path("allowTf32Cublas").asBoolean(false) ? 1.0 : 0.0);
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_CUDNN_BENCHMARK,
          flags.path("cudnnBenchmark").asBoolean(false) ? 1.0 : 0.0);
      if (flags.path("intraOpThreadsNow").isNumber()) {
        f.put(io.gitm.levers.LeverContext.FACT_TORCH_THREADS, flags.path("intraOpThreadsNow").asDouble());
      }
      JsonNode conv = facts.path("convolutions");
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_CONV_MODULES, conv.path("modules").asDouble(0));
      double inputs = conv.path("inputs").asDouble(0);
      if (inputs > 0) {
        f.put(io.gitm.levers.LeverContext.FACT_TORCH_CHANNELS_LAST_SHARE, conv.path("channelsLast").asDouble(0)
            / inputs);
      }
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_COMPILE, facts.path("used").path("compile").asDouble(0));
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_AUTOCAST, facts.path("used").path("autocast").asDouble(0));
      f.put(io.gitm.levers.LeverContext.FACT_TORCH_CUDA, facts.path("cuda").asBoolean(false) ? 1.0 : 0.0);
      return f;
    }

    private static OptionalDouble number(JsonNode doc, String field) {
      JsonNode n = doc == null ? null : doc.get(field);
      return n != null && n.isNumber() && Double.isFinite(n.asDouble()) ? OptionalDouble.of(n.asDouble())
          : OptionalDouble.empty();
    }
  }

  /** What the hook wrote in {@code runFolder}; a folder the hook never wrote in gives a report of no torch. */
  public static Report read(Path runFolder) {
    if (runFolder == null || !Files.isDirectory(runFolder)) {
      return Report.NONE;
    }
    String error = null;
    Path err = runFolder.resolve("hook-error.txt");
    try {
      if (Files.isRegularFile(err)) {
        error = Files.readString(err, StandardCharsets.UTF_8).strip();
        int nl = error.indexOf('\n');
        error = nl < 0 ? error : error.substring(0, nl) + " (" + lastLine(error) + ")";
      }
      int processes = 0;
      Path procs = runFolder.resolve("processes");
      if (Files.isDirectory(procs)) {
        try (var s = Files.list(procs)) {
          processes = (int) s.filter(p -> p.getFileName().toString().endsWith(".json")).count();
        }
      }
      boolean torch;
      try (var s = Files.list(runFolder)) {
        torch = s.anyMatch(p -> p.getFileName().toString().startsWith("main-"));
      }
      return new Report(torch, processes, json(runFolder.resolve("metric.json")),
          json(runFolder.resolve("facts.json")), error);
    } catch (IOException e) {
      return new Report(false, 0, null, null, "the hook's folder " + runFolder + " cannot be read: " + e.getMessage());
    }
  }

  private static JsonNode json(Path f) {
    if (!Files.isRegularFile(f)) {
      return null;
    }
    try {
      return JSON.readTree(f.toFile());
    } catch (RuntimeException e) {
      return null; // written atomically by the hook, so only a file of something else's is unreadable
    }
  }

  private static String lastLine(String text) {
    String t = text.strip();
    int nl = t.lastIndexOf('\n');
    return nl < 0 ? t : t.substring(nl + 1).strip();
  }
}
