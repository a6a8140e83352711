package io.gitm.workloads.af2;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.MathMode;
import io.gitm.device.SchedulingMode;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.IterationResult;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * af2's figures on one device, for the H200 session: the shipped configuration and hand-picked ones reachable through
 * {@link ExecutionConfig} alone, each opened fresh, one untimed step then {@code runs} timed steps (residues/s: mean
 * and min..max over the steps; the most device memory held; the output against the shipped configuration's:
 * identical bits, or the largest relative difference); then a profiling pass (timing events around every launch and
 * GEMM) with each kernel's device time against its roofline floor from its work model at H200 figures. Writes
 * {@code af2.txt}, {@code af2.json} and {@code status} ({@code ok}, or why not) to the output folder.
 *
 * <p>Arguments: {@code --out DIR --data DIR [--device nvidia|sim] [--runs N] [--settings SPEC] [--budget-s S]};
 * {@code SPEC} is {@link Af2Workload.Params#parse} over the device's defaults (e.g. {@code blocks=8}); configurations
 * left when {@code S} seconds have passed are skipped and listed as such. A dry run without a GPU:
 * {@code java -cp
 * gitm-workloads/target/test-classes:gitm-workloads/target/classes:gitm-api/target/classes:gitm-sim/target/classes
 * io.gitm.workloads.af2.Af2Bench --device sim --out /tmp/af2 --data /tmp/af2data}.
 */
public final class Af2Bench {
  /** H200 figures for the roofline floor: HBM bytes/s as measured for hft-lob, FP32 and dense TF32/BF16 flops/s. */
  static final double H200_BANDWIDTH = 3.3e12;
  static final double H200_FP32 = 60e12;
  static final double H200_TENSOR = 400e12;

  private Af2Bench() {
  }

  record Named(String name, ExecutionConfig config) {
  }

  static List<Named> configs() {
    ExecutionConfig s = ExecutionConfig.shipped();
    ExecutionConfig pool = s.withAllocation(Allocation.POOL, Long.MAX_VALUE);
    ExecutionConfig pre = s.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false)
        .withAllocation(Allocation.PREALLOCATED, 0);
    ExecutionConfig graph = pre.withGraphCapture(true);
    Map<String, String> chunked = Map.of(Af2Workload.ATTENTION_FAMILY, "chunked");
    return List.of(
        new Named("shipped", s),
        new Named("pool", pool),
        new Named("pinned+async+prealloc", pre),
        new Named("prealloc+graph", graph),
        new Named("pool+2streams", pool.withStreams(2, false, false)),
        new Named("pool+chunked", pool.withKernelVariants(chunked)),
        new Named("prealloc+graph+chunked", graph.withKernelVariants(chunked)),
        new Named("pool+tf32", pool.withMathMode(MathMode.TF32)),
        new Named("prealloc+graph+tf32", graph.withMathMode(MathMode.TF32)),
        new Named("prealloc+graph+bf16", graph.withMathMode(MathMode.BF16)));
  }

  public static void main(String[] args) throws IOException {
    Map<String, String> a = io.gitm.workloads.BenchSupport.args(args);
    Path out = Path.of(a.getOrDefault("out", "af2-out"));
    Path data = Path.of(a.getOrDefault("data", System.getProperty("java.io.tmpdir") + "/gitm-datasets/biotech"));
    String kind = a.getOrDefault("device", "nvidia");
    int runs = Integer.parseInt(a.getOrDefault("runs", "3"));
    long budget = (long) (Double.parseDouble(a.getOrDefault("budget-s", "600")) * 1e9);
    Files.createDirectories(out);
    StringBuilder text = new StringBuilder();
    StringBuilder json = new StringBuilder("{\"date\":\"" + Instant.now() + "\",\"device\":\"" + kind + "\"");
    String status = "ok";
    try {
      DeviceProvider provider = io.gitm.workloads.BenchSupport.usableProvider(kind);
      DeviceRequest request = new DeviceRequest(0, SchedulingMode.AUTO, Map.of());
      Af2Workload.Params params;
      try (Device d = provider.open(request)) {
        Af2Workload base = new Af2Workload();
        params = a.containsKey("settings") ? base.params(d).parse(a.get("settings")) : base.params(d);
        text.append(String.format(Locale.ROOT, "af2 on %s (%s), %s%n", d.info().name(), d.info().kind().label(),
            params));
      }
      Af2Workload workload = new Af2Workload(params);
      long t0 = System.nanoTime();
      OutputDigest shipped = null;
      json.append(",\"configs\":[");
      boolean first = true;
      for (Named n : configs()) {
        json.append(first ? "" : ",");
        first = false;
        if (System.nanoTime() - t0 > budget) {
          text.append(String.format(Locale.ROOT, "%-28s skipped (budget)%n", n.name()));
          json.append("{\"name\":\"").append(n.name()).append("\",\"skipped\":true}");
          continue;
        }
        try (Device d = provider.open(request); Workload.Session s = workload.open(d, n.config(), data)) {
          s.step();
          List<Double> rates = new ArrayList<>();
          double peak = 0;
          for (int r = 0; r < runs; r++) {
            IterationResult it = s.step();
            rates.add(it.rate());
            peak = Math.max(peak, it.extras().getOrDefault("peakDeviceBytes", 0.0));
          }
          OutputDigest digest = s.output();
          if (shipped == null) {
            shipped = digest;
          }
          String equal = digest.sha256().equals(shipped.sha256()) ? "identical"
              : String.format(Locale.ROOT, "max rel diff %.2e", digest.maxRelativeDifference(shipped));
          double mean = rates.stream().mapToDouble(x -> x).average().orElse(0);
          double min = rates.stream().mapToDouble(x -> x).min().orElse(0);
          double max = rates.stream().mapToDouble(x -> x).max().orElse(0);
          text.append(String.format(Locale.ROOT, "%-28s %10.1f residues/s (%.1f..%.1f)  peak %8.1f MB  output %s%n",
              n.name(), mean, min, max, peak / 1e6, equal));
          json.append(String.format(Locale.ROOT, "{\"name\":\"%s\",\"residuesPerSecond\":%.3f,\"min\":%.3f,"
              + "\"max\":%.3f,\"peakDeviceBytes\":%.0f,\"output\":\"%s\"}", n.name(), mean, min, max, peak, equal));
        } catch (RuntimeException e) {
          text.append(String.format(Locale.ROOT, "%-28s failed: %s%n", n.name(), e.getMessage()));
          json.append("{\"name\":\"").append(n.name()).append("\",\"failed\":\"")
              .append(String.valueOf(e.getMessage()).replace("\"", "'")).append("\"}");
        }
      }
      json.append("]");
      profile(provider, request, workload, params, data, text, json);
    } catch (RuntimeException e) {
      StringWriter w = new StringWriter();
      e.printStackTrace(new PrintWriter(w));
      text.append("failed: ").append(w);
      status = "failed: " + e.getMessage();
    }
    json.append("}\n");
    Files.writeString(out.resolve("af2.txt"), text);
    Files.writeString(out.resolve("af2.json"), json);
    Files.writeString(out.resolve("status"), status + "\n");
    System.out.print(text);
  }

  /** One profiled step (pool allocation, default math): per kernel, device ms against its roofline floor. */
  static void profile(DeviceProvider provider, DeviceRequest request, Af2Workload workload, Af2Workload.Params p,
      Path data, StringBuilder text, StringBuilder json) {
    ExecutionConfig cfg = ExecutionConfig.shipped().withAllocation(Allocation.POOL, Long.MAX_VALUE);
    Msa msa = Af2Dataset.load(data, p.inputName(), p.input() != null ? null
        : () -> new MsaGenerator(p.seed(), p.nRes(), p.nSeq()).generate());
    try (Device d = provider.open(request);
        Af2Session s = new Af2Session(d, cfg, workload.weights(p), msa.features(p.nSeq()), p.chunkRows(), true)) {
      s.step();
      s.kernelMillis().clear();
      s.step();
      text.append(String.format(Locale.ROOT, "%nper kernel (one profiled step, pool, FP32): ms, launches, floor ms"
          + " (flops at %.0f TFLOP/s FP32, bytes at %.1f TB/s), ratio%n", H200_FP32 / 1e12, H200_BANDWIDTH / 1e12));
      json.append(",\"kernels\":[");
      boolean first = true;
      for (Map.Entry<String, double[]> e : s.kernelMillis().entrySet()) {
        double[] v = e.getValue();
        double floor = Math.max(v[2] / H200_FP32, (v[3] + v[4]) / H200_BANDWIDTH) * 1e3;
        text.append(String.format(Locale.ROOT, "%-22s %10.3f %7.0f %10.3f %8.1fx%n", e.getKey(), v[0], v[1], floor,
            floor > 0 ? v[0] / floor : 0));
        json.append(first ? "" : ",").append(String.format(Locale.ROOT, "{\"kernel\":\"%s\",\"ms\":%.4f,"
            + "\"launches\":%.0f,\"flops\":%.4e,\"bytesRead\":%.4e,\"bytesWritten\":%.4e,\"floorMs\":%.4f}", e.getKey(),
            v[0], v[1], v[2], v[3], v[4], floor));
        first = false;
      }
      json.append("]");
    }
  }
}
