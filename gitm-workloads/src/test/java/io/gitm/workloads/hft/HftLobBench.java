package io.gitm.workloads.hft;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.SchedulingMode;
import io.gitm.trace.Precision;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The GPU part of hft-lob (scripts/gpu.d/30-hft-lob.sh): runs the workload on the {@code nvidia} device in the
 * shipped configuration and in hand-picked configurations reachable through {@link ExecutionConfig} alone, each
 * several times over the whole dataset, reporting messages/s and batch latency p50/p99 with their spread across
 * runs, and whether the output equals the plain-Java reference; then a profiling pass (timing events around every
 * kernel) with each kernel's roofline floor from its work model at the H200's figures; then the same profiling pass
 * on the simulated {@code h200} for the per-kernel comparison. Writes {@code hft-lob.json}, {@code hft-lob.txt}
 * and {@code status} (one line: {@code ok}, or why not) to the output folder.
 *
 * <p>Arguments: {@code --out DIR --data DIR [--runs N] [--messages N] [--instruments N] [--sim-batches N]
 * [--budget-s S] [--throughput KINDS] [--real FILE]}: configurations still to run when {@code S} seconds have passed
 * are skipped, and said so; {@code KINDS} (default {@code nvidia}) lists the device kinds the configurations are
 * timed on; {@code FILE}, the {@code hft-lob.json} of an earlier GPU run, adds a per-stage comparison of this run's
 * simulated h200 with that run's real H200 and that run's simulated figures (so the sim side can be re-run where
 * there is no GPU: {@code --throughput none --real hft-lob.json}).
 */
public final class HftLobBench {
  /** H200 figures for the roofline floor (bytes/s of HBM3e, FP32 and INT32 operations/s). */
  static final double H200_BANDWIDTH = 3.3e12;
  static final double H200_FP32 = 60e12;
  /** Hopper issues INT32 at half the FP32 rate (64 of 128 lanes per SM sub-partition set): an assumption. */
  static final double H200_INT32 = 30e12;

  private HftLobBench() {
  }

  record Named(String name, ExecutionConfig config) {
  }

  static final Map<String, String> WARP = Map.of(LobKernels.BOOK_FAMILY, "warp");

  static List<Named> configs() {
    ExecutionConfig s = ExecutionConfig.shipped();
    ExecutionConfig pinned = s.withHostMemory(HostMemoryKind.PINNED);
    ExecutionConfig async = pinned.withStreams(1, true, false);
    ExecutionConfig pre = async.withAllocation(Allocation.PREALLOCATED, 0);
    ExecutionConfig graph = pre.withGraphCapture(true);
    return List.of(
        new Named("shipped", s),
        new Named("pinned", pinned),
        new Named("pinned+async", async),
        new Named("pinned+async+pool", async.withAllocation(Allocation.POOL, 1L << 30)),
        new Named("pinned+async+prealloc", pre),
        new Named("prealloc+overlap", pre.withStreams(1, true, true)),
        new Named("prealloc+2streams", pre.withStreams(2, true, false)),
        new Named("prealloc+2streams+overlap", pre.withStreams(2, true, true)),
        new Named("prealloc+graph", graph),
        new Named("prealloc+graph+2streams", graph.withStreams(2, true, false)),
        new Named("prealloc+graph+block256", graph.withBlockSize(256)),
        new Named("prealloc+graph+block64", graph.withBlockSize(64)),
        new Named("prealloc+2streams+prio-3", pre.withStreams(2, true, false).withLatencyStreamPriority(-3)),
        new Named("prealloc+graph+coalesce4", graph.withBatchCoalesce(4)),
        new Named("prealloc+graph+2streams+coalesce4", graph.withStreams(2, true, false).withBatchCoalesce(4)),
        new Named("pinned+async+prealloc+warpbook", pre.withKernelVariants(WARP)),
        new Named("prealloc+2streams+warpbook", pre.withStreams(2, true, false).withKernelVariants(WARP)),
        new Named("prealloc+graph+warpbook", graph.withKernelVariants(WARP)),
        new Named("prealloc+graph+2streams+warpbook", graph.withStreams(2, true, false).withKernelVariants(WARP)),
        new Named("prealloc+graph+2streams+coalesce4+warpbook", graph.withStreams(2, true, false).withBatchCoalesce(4)
            .withKernelVariants(WARP)));
  }

  /** The profiling pass's configuration: kernels bracketed by events, copies async so events time them too. */
  static final ExecutionConfig PROFILE = ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED)
      .withStreams(1, true, false).withAllocation(Allocation.PREALLOCATED, 0);

  public static void main(String[] args) throws IOException {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
      }
      a.put(args[i].substring(2), args[i + 1]);
    }
    Path out = Path.of(a.getOrDefault("out", "hft-lob-out"));
    Path data = Path.of(a.getOrDefault("data", System.getProperty("java.io.tmpdir") + "/gitm-datasets/hft"));
    int runs = Integer.parseInt(a.getOrDefault("runs", "3"));
    HftLobWorkload.Params defaults = HftLobWorkload.Params.defaults();
    HftLobWorkload.Params params = defaults.withData(defaults.seed(),
        Integer.parseInt(a.getOrDefault("instruments", "" + defaults.instruments())),
        Integer.parseInt(a.getOrDefault("messages", "" + defaults.bookMessages())));
    int simBatches = Integer.parseInt(a.getOrDefault("sim-batches", "20"));
    long budgetNanos = (long) (Double.parseDouble(a.getOrDefault("budget-s", "300")) * 1e9);
    List<String> throughputKinds = List.of(a.getOrDefault("throughput", "nvidia").split(","));
    Files.createDirectories(out);
    HftLobBench.Run run = new HftLobBench.Run(out, data, runs, params, simBatches, budgetNanos, throughputKinds);
    if (a.containsKey("real")) {
      Path real = Path.of(a.get("real"));
      if (!Files.isRegularFile(real)) {
        throw new IllegalArgumentException("--real " + real + ": no such file (an hft-lob.json of an earlier GPU run)");
      }
      run.stored = StoredRun.read(real);
    }
    run.run();
  }

  /**
   * The per-stage means of an earlier run's {@code hft-lob.json}: per device kind, the plain profiling pass's stages
   * plus the warp variant's book kernel (as {@link Run#device} records them), and the warp pass's stages on their own.
   */
  record StoredRun(Path file, String date, Map<String, Map<String, Double>> byKind,
      Map<String, Map<String, Double>> warpByKind) {
    static StoredRun read(Path file) throws IOException {
      String json = Files.readString(file);
      java.util.regex.Matcher date = java.util.regex.Pattern.compile("\"date\":\"([^\"]+)\"").matcher(json);
      Map<String, Map<String, Double>> by = new LinkedHashMap<>();
      Map<String, Map<String, Double>> warp = new LinkedHashMap<>();
      for (String kind : List.of("nvidia", "sim")) {
        int at = json.indexOf("{\"kind\":\"" + kind + "\"");
        if (at < 0) {
          continue;
        }
        int next = json.indexOf("{\"kind\":", at + 1);
        String dev = json.substring(at, next < 0 ? json.length() : next);
        Map<String, Double> plain = stages(dev, "\"kernels\":[");
        Map<String, Double> w = stages(dev, "\"kernelsWarpBook\":[");
        if (plain.isEmpty()) {
          continue;
        }
        Double bw = w.get(LobKernels.BOOK_WARP);
        if (bw != null) {
          plain.put(LobKernels.BOOK_WARP, bw);
        }
        by.put(kind, plain);
        warp.put(kind, w);
      }
      if (by.isEmpty()) {
        throw new IllegalArgumentException(file + ": no per-kernel profile of any device in it");
      }
      return new StoredRun(file, date.find() ? date.group(1) : "?", by, warp);
    }

    private static Map<String, Double> stages(String dev, String key) {
      Map<String, Double> m = new LinkedHashMap<>();
      int at = dev.indexOf(key);
      if (at < 0) {
        return m;
      }
      int end = dev.indexOf(']', at);
      java.util.regex.Matcher e = java.util.regex.Pattern
          .compile("\"name\":\"([^\"]+)\",\"meanMs\":([-0-9.eE+]+)").matcher(dev.substring(at, end));
      while (e.find()) {
        m.put(e.group(1), Double.parseDouble(e.group(2)));
      }
      return m;
    }
  }

  private static final class Run {
    StoredRun stored;
    final Map<String, Map<String, Double>> warpPasses = new LinkedHashMap<>();
    final Path out;
    final Path data;
    final int runs;
    final HftLobWorkload.Params params;
    final int simBatches;
    final long budgetNanos;
    final long started = System.nanoTime();
    final StringBuilder text = new StringBuilder();
    final Json json = new Json();
    ItchFile file;
    OutputDigest reference;

    final List<String> throughputKinds;

    Run(Path out, Path data, int runs, HftLobWorkload.Params params, int simBatches, long budgetNanos,
        List<String> throughputKinds) {
      this.budgetNanos = budgetNanos;
      this.throughputKinds = throughputKinds;
      this.out = out;
      this.data = data;
      this.runs = runs;
      this.params = params;
      this.simBatches = simBatches;
    }

    void line(String fmt, Object... args) {
      String s = String.format(Locale.ROOT, fmt, args);
      text.append(s).append('\n');
      System.out.println(s);
    }

    void run() throws IOException {
      String status = "ok";
      json.open().field("workload", "hft-lob").field("date", Instant.now().toString());
      line("hft-lob on the GPU, %s", Instant.now());
      json.key("params").open().field("instruments", params.instruments()).field("bookMessages", params.bookMessages())
          .field("batchMessages", params.batchMessages()).field("seed", params.seed())
          .field("orderSlotsPerInstrument", 1L << params.logOrderSlots()).field("levelsPerSide", params.levels())
          .field("runsPerConfig", runs).close();
      HftDataset.Loaded loaded = HftDataset.load(data, params.datasetName(),
          () -> ItchGenerator.of(params.seed(), params.instruments(), params.bookMessages()).generate());
      file = loaded.itch();
      json.key("dataset").open().field("file", loaded.file().getFileName().toString()).field("sha256", loaded.sha256())
          .field("messages", file.count()).field("instruments", file.instruments())
          .field("framing", file.framing().name()).close();
      line("dataset %s sha256 %s: %s", loaded.file().getFileName(), loaded.sha256(), file.summary());
      long t0 = System.nanoTime();
      LobDigest d = new LobDigest(file.instruments());
      LobReference ref = new LobReference(file.instruments(), params.weightSeed());
      for (int from = 0; from < file.count(); from += params.batchMessages()) {
        d.add(ref.batch(file, from, Math.min(file.count(), from + params.batchMessages())));
      }
      reference = d.digest();
      line("reference (plain Java): sha256 %s in %.1f s", reference.sha256(), (System.nanoTime() - t0) / 1e9);
      json.key("reference").open().field("sha256", reference.sha256()).close();

      json.key("devices").array();
      Map<String, Map<String, Double>> perKernel = new LinkedHashMap<>();
      for (String kind : List.of("nvidia", "sim")) {
        String why = device(kind, perKernel);
        if (why != null && kind.equals("nvidia")) {
          status = why;
        }
      }
      json.end();
      comparison(perKernel);
      if (stored != null) {
        storedComparison(perKernel);
      }
      json.field("status", status).close();
      Files.writeString(out.resolve("hft-lob.json"), json.toString());
      Files.writeString(out.resolve("hft-lob.txt"), text.toString());
      Files.writeString(out.resolve("status"), status + "\n");
    }

    /** Runs everything on one kind of device; returns null, or why it could not run. */
    String device(String kind, Map<String, Map<String, Double>> perKernel) {
      json.open().field("kind", kind);
      DeviceProvider provider = null;
      for (DeviceProvider p : DeviceProvider.all()) {
        if (p.kind().equals(kind)) {
          provider = p;
        }
      }
      String why = null;
      if (provider == null) {
        why = "no " + kind + " device: no provider of kind '" + kind + "' on the class path";
      } else {
        DeviceProvider.Probe probe = provider.probe();
        if (!probe.usable()) {
          why = "no " + kind + " device: " + probe.reason() + (probe.fix().isEmpty() ? "" : " (" + probe.fix() + ")");
        }
      }
      if (why != null) {
        line("\n%s", why);
        json.field("available", false).field("reason", why).close();
        return why;
      }
      Map<String, String> options = kind.equals("sim") ? Map.of("preset", "h200") : Map.of();
      DeviceRequest request = new DeviceRequest(0, SchedulingMode.AUTO, options);
      DeviceProvider chosen = provider;
      try {
        try (Device device = provider.open(request)) {
          var info = device.info();
          line("\n== %s: %s (%s, driver %s, %d SMs) ==", kind, info.name(), info.kind(), info.driverVersion(),
              info.multiprocessors());
          json.field("available", true).key("info").open().field("name", info.name())
              .field("kind", info.kind().name()).field("driver", info.driverVersion())
              .field("computeCapability", info.computeCapability()).field("multiprocessors", info.multiprocessors())
              .close();
        }
        // Each configuration and the profiling pass get a freshly opened device, so that a failure in one (a sticky
        // device error) cannot spoil the others.
        if (throughputKinds.contains(kind)) {
          throughput(() -> chosen.open(request));
        }
        perKernel.put(kind, profile(() -> chosen.open(request), kind.equals("sim") ? simBatches : Integer.MAX_VALUE,
            PROFILE));
        Map<String, Double> warp = profile(() -> chosen.open(request), kind.equals("sim") ? simBatches
            : Integer.MAX_VALUE, PROFILE.withKernelVariants(WARP));
        warpPasses.put(kind, warp);
        perKernel.get(kind).putAll(warp.entrySet().stream().filter(e -> e.getKey().equals(LobKernels.BOOK_WARP))
            .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
      } catch (RuntimeException e) {
        why = kind + " device failed: " + e;
        line("%s", why);
        json.field("error", stack(e));
      }
      json.close();
      return why;
    }

    void throughput(java.util.function.Supplier<Device> devices) {
      line("%-44s %14s %8s %10s %8s %10s %8s  %s", "config", "messages/s", "+-%", "p50 ms", "+-%", "p99 ms", "+-%",
          "output");
      json.key("configs").array();
      for (Named c : configs()) {
        json.open().field("name", c.name()).field("config", c.config().toString());
        if (System.nanoTime() - started > budgetNanos) {
          line("%-44s skipped: time budget of %.0f s spent", c.name(), budgetNanos / 1e9);
          json.field("skipped", "time budget spent").close();
          continue;
        }
        double[] rate = new double[runs];
        double[] p50 = new double[runs];
        double[] p99 = new double[runs];
        String equal = "?";
        double maxRel = Double.NaN;
        try (Device device = devices.get()) {
          for (int r = -1; r < runs; r++) { // run -1 warms up the JIT and the driver, untimed
            try (LobSession s = new LobSession(device, c.config(), params, file)) {
              long wall = 0;
              long messages = 0;
              while (s.hasNext()) {
                IterationResult it = s.step();
                wall += it.wallNanos();
                messages += it.units();
              }
              OutputDigest o = s.output();
              if (r < 0) {
                continue;
              }
              rate[r] = messages * 1e9 / wall;
              long[] lat = s.latencies().stream().mapToLong(Long::longValue).sorted().toArray();
              p50[r] = percentile(lat, 0.50) / 1e6;
              p99[r] = percentile(lat, 0.99) / 1e6;
              boolean same = o.sha256().equals(reference.sha256());
              maxRel = Double.isNaN(maxRel) ? o.maxRelativeDifference(reference)
                  : Math.max(maxRel, o.maxRelativeDifference(reference));
              equal = same && maxRel <= HftLobWorkload.SIGNAL_TOLERANCE ? "equal" : same ? "signals differ" : "DIFFERS";
            }
          }
          line("%-44s %14.0f %8.1f %10.3f %8.1f %10.3f %8.1f  %s (signals max rel diff %.2g)", c.name(), mean(rate),
              100 * sd(rate) / mean(rate), mean(p50), 100 * sd(p50) / mean(p50), mean(p99), 100 * sd(p99) / mean(p99),
              equal, maxRel);
          json.key("messagesPerSecond").stats(rate).key("latencyP50Ms").stats(p50).key("latencyP99Ms").stats(p99)
              .field("output", equal).field("signalsMaxRelativeDifference", maxRel);
        } catch (RuntimeException e) {
          line("%-44s failed: %s", c.name(), e);
          json.field("error", stack(e));
        }
        json.close();
      }
      json.end();
    }

    Map<String, Double> profile(java.util.function.Supplier<Device> devices, int maxBatches, ExecutionConfig config) {
      Map<String, Double> meanMs = new LinkedHashMap<>();
      line("\nper-kernel device time (profiling pass: events around each launch; config pinned+async+prealloc%s)",
          config.kernelVariants().isEmpty() ? "" : " " + config.kernelVariants());
      line("%-18s %10s %8s %14s %14s %10s %9s", "stage", "mean ms", "batches", "bytes/batch", "ops/batch", "floor ms",
          "x floor");
      json.key(config.kernelVariants().isEmpty() ? "kernels" : "kernelsWarpBook").array();
      try (Device device = devices.get(); LobSession s = new LobSession(device, config, params, file, true)) {
        int b = 0;
        while (s.hasNext() && b++ < maxBatches) {
          s.step();
        }
        s.output();
        for (Map.Entry<String, double[]> e : s.kernelMillis().entrySet()) {
          double ms = e.getValue()[0] / e.getValue()[1];
          meanMs.put(e.getKey(), ms);
          double[] w = s.kernelWork().get(e.getKey());
          json.open().field("name", e.getKey()).field("meanMs", ms).field("batches", (long) e.getValue()[1]);
          if (w == null) {
            line("%-18s %10.4f %8d", e.getKey(), ms, (long) e.getValue()[1]);
          } else {
            double launches = w[3];
            double bytes = (w[1] + w[2]) / launches;
            double ops = w[0] / launches;
            double peak = e.getKey().equals(LobKernels.MLP) ? H200_FP32 : H200_INT32;
            double floorMs = Math.max(bytes / H200_BANDWIDTH, ops / peak) * 1e3;
            line("%-18s %10.4f %8d %14.0f %14.0f %10.5f %9.1f", e.getKey(), ms, (long) e.getValue()[1], bytes, ops,
                floorMs, ms / floorMs);
            json.field("bytesPerBatch", bytes).field("opsPerBatch", ops)
                .field("precision", e.getKey().equals(LobKernels.MLP) ? Precision.FP32.name() : Precision.INT32.name())
                .field("rooflineFloorMs", floorMs).field("timesFloor", ms / floorMs);
          }
          json.close();
        }
      } catch (RuntimeException e) {
        line("profiling failed: %s", e);
        json.open().field("error", stack(e)).close();
      }
      json.end();
      return meanMs;
    }

    /**
     * This run's simulated h200 against the real H200 of a stored run, with the stored run's own simulated figures
     * (the model before) beside them: the plain pass (with the warp variant's book kernel), then the warp pass.
     */
    void storedComparison(Map<String, Map<String, Double>> perKernel) {
      Map<String, Double> real = stored.byKind().get("nvidia");
      Map<String, Double> now = perKernel.get("sim");
      json.key("simVsStoredReal").open().field("file", stored.file().toString()).field("storedDate", stored.date());
      if (real == null || now == null) {
        line("\nno comparison with %s: %s", stored.file(),
            real == null ? "it has no nvidia profile" : "no sim profile now");
        json.field("error", real == null ? "no nvidia profile in the stored run" : "no sim profile").close();
        return;
      }
      storedTable("plain pass (+ " + LobKernels.BOOK_WARP + " from the warp pass)", real,
          stored.byKind().getOrDefault("sim", Map.of()), now, "plain");
      storedTable("warp pass (" + LobKernels.BOOK_FAMILY + "=warp)",
          stored.warpByKind().getOrDefault("nvidia", Map.of()), stored.warpByKind().getOrDefault("sim", Map.of()),
          warpPasses.getOrDefault("sim", Map.of()), "warp");
      json.close();
    }

    private void storedTable(String title, Map<String, Double> real, Map<String, Double> before,
        Map<String, Double> now, String key) {
      line("\nsimulated h200 now vs the real H200 of %s (%s), %s; error = (sim - real) / real", stored.file(),
          stored.date(), title);
      line("%-18s %10s %14s %10s %12s %10s", "stage", "real ms", "sim before ms", "err before", "sim now ms",
          "err now");
      json.key(key).array();
      for (Map.Entry<String, Double> e : real.entrySet()) {
        Double s = now.get(e.getKey());
        if (s == null) {
          continue;
        }
        double r = e.getValue();
        Double b = before.get(e.getKey());
        line("%-18s %10.4f %14s %10s %12.4f %9.1f%%", e.getKey(), r,
            b == null ? "-" : String.format(Locale.ROOT, "%.4f", b),
            b == null ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * (b - r) / r), s, 100 * (s - r) / r);
        json.open().field("stage", e.getKey()).field("realMs", r).field("simBeforeMs", b == null ? Double.NaN : b)
            .field("simMs", s).field("relativeError", (s - r) / r).close();
      }
      json.end();
    }

    void comparison(Map<String, Map<String, Double>> perKernel) {
      Map<String, Double> real = perKernel.get("nvidia");
      Map<String, Double> sim = perKernel.get("sim");
      json.key("simVsReal").array();
      if (real == null || sim == null) {
        line("\nno sim-vs-real comparison: %s", real == null ? "no nvidia profile" : "no sim profile");
      } else {
        line("\nsimulated h200 vs real, per stage (relative error = (sim - real) / real)");
        line("%-18s %12s %12s %10s", "stage", "real ms", "sim ms", "rel err");
        for (Map.Entry<String, Double> e : real.entrySet()) {
          Double s = sim.get(e.getKey());
          if (s == null) {
            continue;
          }
          double err = (s - e.getValue()) / e.getValue();
          line("%-18s %12.4f %12.4f %9.1f%%", e.getKey(), e.getValue(), s, 100 * err);
          json.open().field("stage", e.getKey()).field("realMs", e.getValue()).field("simMs", s)
              .field("relativeError", err).close();
        }
      }
      json.end();
    }
  }

  static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
  }

  static double mean(double[] v) {
    return Arrays.stream(v).average().orElse(Double.NaN);
  }

  static double sd(double[] v) {
    if (v.length < 2) {
      return 0;
    }
    double m = mean(v);
    return Math.sqrt(Arrays.stream(v).map(x -> (x - m) * (x - m)).sum() / (v.length - 1));
  }

  static String stack(Throwable e) {
    StringWriter w = new StringWriter();
    e.printStackTrace(new PrintWriter(w));
    return w.toString();
  }

  /** A minimal JSON writer: objects, arrays, string/number/boolean fields. */
  static final class Json {
    private final StringBuilder b = new StringBuilder();
    private final List<Boolean> first = new ArrayList<>();
    private boolean afterKey;

    private void comma() {
      if (afterKey) {
        afterKey = false;
        return;
      }
      if (!first.isEmpty()) {
        if (!first.getLast()) {
          b.append(',');
        }
        first.set(first.size() - 1, false);
      }
    }

    Json open() {
      comma();
      b.append('{');
      first.add(true);
      return this;
    }

    Json close() {
      b.append('}');
      first.removeLast();
      return this;
    }

    Json array() {
      comma();
      b.append('[');
      first.add(true);
      return this;
    }

    Json end() {
      b.append(']');
      first.removeLast();
      return this;
    }

    Json key(String k) {
      comma();
      str(k);
      b.append(':');
      afterKey = true;
      return this;
    }

    Json field(String k, String v) {
      key(k);
      afterKey = false;
      if (v == null) {
        b.append("null");
      } else {
        str(v);
      }
      return this;
    }

    Json field(String k, double v) {
      key(k);
      afterKey = false;
      b.append(Double.isFinite(v) ? Double.toString(v) : "null");
      return this;
    }

    Json field(String k, long v) {
      key(k);
      afterKey = false;
      b.append(v);
      return this;
    }

    Json field(String k, boolean v) {
      key(k);
      afterKey = false;
      b.append(v);
      return this;
    }

    Json stats(double[] v) {
      open().field("mean", mean(v)).field("stdev", sd(v))
          .field("min", Arrays.stream(v).min().orElse(Double.NaN))
          .field("max", Arrays.stream(v).max().orElse(Double.NaN)).key("runs").array();
      for (double x : v) {
        comma();
        b.append(Double.isFinite(x) ? Double.toString(x) : "null");
      }
      return end().close();
    }

    private void str(String s) {
      b.append('"');
      for (char c : s.toCharArray()) {
        switch (c) {
          case '"' -> b.append("\\\"");
          case '\\' -> b.append("\\\\");
          case '\n' -> b.append("\\n");
          case '\t' -> b.append("\\t");
          case '\r' -> b.append("\\r");
          default -> {
            if (c < 0x20) {
              b.append(String.format("\\u%04x", (int) c));
            } else {
              b.append(c);
            }
          }
        }
      }
      b.append('"');
    }

    @Override
    public String toString() {
      return b.toString();
    }
  }
}
