package io.gitm.workloads.kitti;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.SchedulingMode;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import io.gitm.workload.ExecutionConfig.Allocation;
import io.gitm.workload.ExecutionConfig;
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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * kitti's figures on one device, for the H200 session: the shipped configuration and hand-picked ones reachable
 * through {@link ExecutionConfig} alone, each opened fresh, one untimed frame then {@code runs} timed frames
 * (frames/s: mean and min..max over the steps; frame latency p50 and p99; the output against the shipped
 * configuration's); then one traced frame (pool allocation) with each kernel's device time against its roofline floor
 * from its work model at H200 figures. Writes {@code kitti.txt}, {@code kitti.json} and {@code status} ({@code ok}, or
 * why not) to the output folder.
 *
 * <p>Arguments: {@code --out DIR --data DIR [--device nvidia|sim] [--runs N] [--settings SPEC] [--budget-s S]};
 * {@code SPEC} is {@link KittiWorkload.Params#parse} over the device's defaults. A dry run without a GPU:
 * {@code java -cp
 * gitm-workloads/target/test-classes:gitm-workloads/target/classes:gitm-api/target/classes:gitm-sim/target/classes
 * io.gitm.workloads.kitti.KittiBench --device sim --out /tmp/kitti --data /tmp/kittidata --settings frames=2}.
 */
public final class KittiBench {
  /** H200 figures for the roofline floor: HBM bytes/s as measured for hft-lob, FP32 flops/s. */
  static final double H200_BANDWIDTH = 3.3e12;
  static final double H200_FP32 = 60e12;

  private KittiBench() {
  }

  record Named(String name, ExecutionConfig config) {
  }

  static List<Named> configs() {
    ExecutionConfig s = ExecutionConfig.shipped();
    ExecutionConfig pinned = s.withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false);
    ExecutionConfig pool = pinned.withAllocation(Allocation.POOL, Long.MAX_VALUE);
    ExecutionConfig pre = pinned.withAllocation(Allocation.PREALLOCATED, 0);
    return List.of(
        new Named("shipped", s),
        new Named("pinned+async", pinned),
        new Named("pinned+async+pool", pool),
        new Named("pinned+async+prealloc", pre),
        new Named("prealloc+prefetch", pre.withStreams(2, true, false)),
        new Named("prealloc+graph", pre.withGraphCapture(true)),
        new Named("prealloc+graph+prefetch", pre.withGraphCapture(true).withStreams(2, true, false)),
        new Named("prealloc+scatter128", pre.withBlockSize(128)),
        new Named("prealloc+scatter512", pre.withBlockSize(512)),
        new Named("prealloc+scatterOccupancy", pre.withBlockSize(ExecutionConfig.OCCUPANCY_BLOCK_SIZE)));
  }

  public static void main(String[] args) throws IOException {
    Map<String, String> a = io.gitm.workloads.BenchSupport.args(args);
    Path out = Path.of(a.getOrDefault("out", "kitti-out"));
    Path data = Path.of(a.getOrDefault("data", System.getProperty("java.io.tmpdir") + "/gitm-datasets/edge"));
    String kind = a.getOrDefault("device", "nvidia");
    int runs = Integer.parseInt(a.getOrDefault("runs", "20"));
    long budget = (long) (Double.parseDouble(a.getOrDefault("budget-s", "600")) * 1e9);
    Files.createDirectories(out);
    StringBuilder text = new StringBuilder();
    StringBuilder json = new StringBuilder("{\"date\":\"" + Instant.now() + "\",\"device\":\"" + kind + "\"");
    String status = "ok";
    try {
      DeviceProvider provider = io.gitm.workloads.BenchSupport.usableProvider(kind);
      DeviceRequest request = new DeviceRequest(0, SchedulingMode.AUTO, Map.of());
      KittiWorkload.Params params;
      try (Device d = provider.open(request)) {
        KittiWorkload base = new KittiWorkload();
        params = a.containsKey("settings") ? base.params(d).parse(a.get("settings")) : base.params(d);
        text.append(String.format(Locale.ROOT, "kitti on %s (%s), %s%n", d.info().name(), d.info().kind().label(),
            params));
      }
      KittiWorkload workload = new KittiWorkload(params);
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
          IterationResult last = null;
          for (int r = 0; r < Math.max(runs, params.frames()); r++) {
            last = s.step();
            rates.add(last.rate());
          }
          OutputDigest digest = s.output();
          if (shipped == null) {
            shipped = digest;
          }
          String equal = digest.sha256().equals(shipped.sha256()) ? "identical" : "DIFFERENT";
          double mean = rates.stream().mapToDouble(x -> x).average().orElse(0);
          double min = rates.stream().mapToDouble(x -> x).min().orElse(0);
          double max = rates.stream().mapToDouble(x -> x).max().orElse(0);
          double p50 = last.extras().get("frameLatencyP50Nanos") / 1e6;
          double p99 = last.extras().get("frameLatencyP99Nanos") / 1e6;
          text.append(String.format(Locale.ROOT, "%-28s %9.1f frames/s (%.1f..%.1f)  latency p50 %.3f ms p99 %.3f ms"
              + "  output %s%n", n.name(), mean, min, max, p50, p99, equal));
          json.append(String.format(Locale.ROOT, "{\"name\":\"%s\",\"framesPerSecond\":%.3f,\"min\":%.3f,\"max\":%.3f,"
              + "\"latencyP50Ms\":%.4f,\"latencyP99Ms\":%.4f,\"output\":\"%s\"}", n.name(), mean, min, max, p50, p99,
              equal));
        } catch (RuntimeException e) {
          text.append(String.format(Locale.ROOT, "%-28s failed: %s%n", n.name(), e.getMessage()));
          json.append("{\"name\":\"").append(n.name()).append("\",\"failed\":\"")
              .append(String.valueOf(e.getMessage()).replace("\"", "'")).append("\"}");
        }
      }
      json.append("]");
      profile(provider, request, workload, data, text, json);
    } catch (RuntimeException e) {
      StringWriter w = new StringWriter();
      e.printStackTrace(new PrintWriter(w));
      text.append("failed: ").append(w);
      status = "failed: " + e.getMessage();
    }
    json.append("}\n");
    Files.writeString(out.resolve("kitti.txt"), text);
    Files.writeString(out.resolve("kitti.json"), json);
    Files.writeString(out.resolve("status"), status + "\n");
    System.out.print(text);
  }

  /** One traced frame (pinned, async, pool): per kernel, device ms against its roofline floor. */
  static void profile(DeviceProvider provider, DeviceRequest request, KittiWorkload workload, Path data,
      StringBuilder text, StringBuilder json) {
    ExecutionConfig cfg = ExecutionConfig.shipped().withHostMemory(HostMemoryKind.PINNED).withStreams(1, true, false)
        .withAllocation(Allocation.POOL, Long.MAX_VALUE);
    List<TraceRecord> trace = Collections.synchronizedList(new ArrayList<>());
    try (Device d = provider.open(request); Workload.Session s = workload.open(d, cfg, data)) {
      s.step();
      d.tracer().start(trace::add);
      s.step();
      d.synchronize();
      d.tracer().stop();
    }
    // declared work by correlation id (the simulator's) or by order per kernel name and stream (CUPTI's)
    java.util.function.Function<KernelRecord, io.gitm.trace.Work> declared = io.gitm.trace.DeclaredWork.of(trace);
    List<KernelRecord> kernelsInOrder = new ArrayList<>();
    for (TraceRecord r : trace) {
      if (r instanceof KernelRecord k) {
        kernelsInOrder.add(k);
      }
    }
    kernelsInOrder.sort(java.util.Comparator.comparingLong(KernelRecord::startNs));
    Map<String, double[]> byKernel = new LinkedHashMap<>();
    for (KernelRecord k : kernelsInOrder) {
      double[] v = byKernel.computeIfAbsent(k.name(), x -> new double[6]);
      v[0] += (k.endNs() - k.startNs()) / 1e6;
      v[1] += 1;
      io.gitm.trace.Work w = declared.apply(k);
      if (w == null) {
        v[5] += 1; // no declared work: a library's kernel (cuBLAS)
      } else {
        v[2] += w.flops();
        v[3] += w.bytesRead();
        v[4] += w.bytesWritten();
      }
    }
    text.append(String.format(Locale.ROOT, "%nper kernel (one traced frame, pinned, async, pool): ms, launches, floor"
        + " ms (flops at %.0f TFLOP/s FP32, bytes at %.1f TB/s), ratio%n", H200_FP32 / 1e12, H200_BANDWIDTH / 1e12));
    json.append(",\"kernels\":[");
    boolean first = true;
    for (Map.Entry<String, double[]> e : byKernel.entrySet()) {
      double[] v = e.getValue();
      double floor = Math.max(v[2] / H200_FP32, (v[3] + v[4]) / H200_BANDWIDTH) * 1e3;
      if (v[5] > 0) {
        text.append(String.format(Locale.ROOT, "%-32s %10.4f %5.0f %10s %9s%n", e.getKey(), v[0], v[1],
            "(no work", "declared)"));
      } else {
        text.append(String.format(Locale.ROOT, "%-32s %10.4f %5.0f %10.4f %8.1fx%n", e.getKey(), v[0], v[1], floor,
            floor > 0 ? v[0] / floor : 0));
      }
      json.append(first ? "" : ",").append(String.format(Locale.ROOT, "{\"kernel\":\"%s\",\"ms\":%.5f,"
          + "\"launches\":%.0f,\"flops\":%.4e,\"bytesRead\":%.4e,\"bytesWritten\":%.4e,\"floorMs\":%.5f}", e.getKey(),
          v[0], v[1], v[2], v[3], v[4], floor));
      first = false;
    }
    json.append("]");
  }
}
