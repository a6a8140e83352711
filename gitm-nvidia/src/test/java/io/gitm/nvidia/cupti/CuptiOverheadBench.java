package io.gitm.nvidia.cupti;

import io.gitm.api.Ticker;
import io.gitm.trace.KernelRecord;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Tracing overhead of in-process CUPTI on the GPU: a kernel-dense loop (thousands of short launches) and a
 * GEMM-heavy one (a few long tiled SGEMMs), each timed untraced and traced in alternating pairs (the order flips
 * every pair) after warm-up, host wall time from the first launch to the end of {@code cuCtxSynchronize}. The
 * tracer is started before and stopped after the timed region, so the ratio is the steady-state cost of tracing;
 * start and stop are timed separately. Each workload is traced under several sets of activity kinds ({@link
 * #VARIANTS}: kernels only, then copies, memsets and synchronizations added, then runtime or driver API records,
 * then every kind), to show what each kind costs per launch. This process launches through the driver API only, so
 * runtime API records cost only CUPTI's enabling of the kind here; a PyTorch job's API cost is measured by
 * scripts/gpu.d/injection_overhead.py.
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp ... io.gitm.nvidia.cupti.CuptiOverheadBench OUT_DIR
 * [pairs]}; writes {@code OUT_DIR/cupti-overhead.json} and prints a summary. Not a test: run on the GPU machine.
 */
public final class CuptiOverheadBench {
  static final int DENSE_LAUNCHES = 5000;
  static final int DENSE_N = 4096;
  static final int GEMM_N = 2048;
  static final int GEMM_LAUNCHES = 10;
  static final int WARMUP_PAIRS = 3;
  private static final int[] KMSS = {CuptiLayout.KIND_CONCURRENT_KERNEL, CuptiLayout.KIND_MEMCPY,
      CuptiLayout.KIND_MEMSET, CuptiLayout.KIND_SYNCHRONIZATION};

  /** A named set of CUpti_ActivityKind values to trace with. */
  record Variant(String name, int[] kinds) {
  }

  static final List<Variant> VARIANTS = List.of(
      new Variant("concurrent kernels only", new int[] {CuptiLayout.KIND_CONCURRENT_KERNEL}),
      new Variant("kernel+memcpy+memset+sync", KMSS),
      new Variant("kernel+memcpy+memset+sync+runtime API", plus(KMSS, CuptiLayout.KIND_RUNTIME)),
      new Variant("kernel+memcpy+memset+sync+driver API", plus(KMSS, CuptiLayout.KIND_DRIVER)),
      new Variant("all kinds", CuptiTracer.ALL_KINDS));

  static int[] plus(int[] kinds, int kind) {
    int[] k = Arrays.copyOf(kinds, kinds.length + 1);
    k[kinds.length] = kind;
    return k;
  }

  private CuptiOverheadBench() {
  }

  interface Work {
    void run();
  }

  /**
   * One workload under one tracing configuration: per pair, untraced and traced time of the timed region, and the
   * tracer's start and stop (stop flushes: where records fit in CUPTI's buffer, their decoding happens there).
   */
  record Series(String workload, String tracing, String kinds, long[] untracedNs, long[] tracedNs, long[] startNs,
      long[] stopNs, long kernelsPerTracedRun, CuptiTracer.Stats lastStats) {
    double[] ratios() {
      double[] r = new double[untracedNs.length];
      for (int i = 0; i < r.length; i++) {
        r[i] = (double) tracedNs[i] / untracedNs[i];
      }
      return r;
    }

    /** Per pair, traced minus untraced time over the launches of one run, in microseconds. */
    double[] usAddedPerLaunch() {
      double[] r = new double[untracedNs.length];
      for (int i = 0; i < r.length; i++) {
        r[i] = (tracedNs[i] - untracedNs[i]) / 1e3 / kernelsPerTracedRun;
      }
      return r;
    }

    /** Traced time plus the stop (flush and delivery of every record), over untraced time. */
    double[] ratiosWithStop() {
      double[] r = new double[untracedNs.length];
      for (int i = 0; i < r.length; i++) {
        r[i] = (double) (tracedNs[i] + stopNs[i]) / untracedNs[i];
      }
      return r;
    }
  }

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : System.getenv().getOrDefault("OUT", "."));
    int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    var reason = GpuKit.unusableReason();
    if (reason.isPresent()) {
      System.err.println("CuptiOverheadBench: " + reason.get());
      Files.createDirectories(out);
      Files.writeString(out.resolve("cupti-overhead.json"), "{\"skipped\": " + json(reason.get()) + "}\n");
      return;
    }
    try (GpuKit kit = GpuKit.open()) {
      Driver d = kit.driver;
      long dense = d.malloc(4L * DENSE_N);
      MemorySegment denseArgs = kit.axpbArgs(dense, DENSE_N, 0.999f, 0.001f);
      long bytes = 4L * GEMM_N * GEMM_N;
      long a = d.malloc(bytes);
      long b = d.malloc(bytes);
      long c = d.malloc(bytes);
      d.memsetD8(a, (byte) 0x3c, bytes); // 0x3c3c3c3c ~ 0.0115f: finite products
      d.memsetD8(b, (byte) 0x3c, bytes);
      MemorySegment gemmArgs = kit.sgemmArgs(a, b, c, GEMM_N);
      Work denseLoop = () -> {
        for (int i = 0; i < DENSE_LAUNCHES; i++) {
          d.launch(kit.axpb, DENSE_N / 256, 256, MemorySegment.NULL, denseArgs);
        }
        d.synchronize();
      };
      Work gemmLoop = () -> {
        for (int i = 0; i < GEMM_LAUNCHES; i++) {
          kit.sgemm(gemmArgs, GEMM_N, MemorySegment.NULL);
        }
        d.synchronize();
      };
      List<Series> all = new ArrayList<>();
      for (Variant v : VARIANTS) {
        all.add(measure("kernel-dense", v.name(), denseLoop, v.kinds(), pairs, DENSE_LAUNCHES));
        all.add(measure("gemm-heavy", v.name(), gemmLoop, v.kinds(), pairs, GEMM_LAUNCHES));
      }
      // Is the cost of a traced region partly a one-off at the first launch after enabling? One launch of the same
      // kernel between start and the timed region (counted in "start") takes such a cost out of the ratio.
      int[] kernelsOnly = VARIANTS.getFirst().kinds();
      String warmed = "concurrent kernels only, one untimed launch after start";
      all.add(measure("kernel-dense", warmed, denseLoop, kernelsOnly, pairs, DENSE_LAUNCHES, () -> {
        d.launch(kit.axpb, DENSE_N / 256, 256, MemorySegment.NULL, denseArgs);
        d.synchronize();
      }, 1));
      all.add(measure("gemm-heavy", warmed, gemmLoop, kernelsOnly, pairs, GEMM_LAUNCHES, () -> {
        kit.sgemm(gemmArgs, GEMM_N, MemorySegment.NULL);
        d.synchronize();
      }, 1));
      d.free(dense);
      d.free(a);
      d.free(b);
      d.free(c);
      write(out, all, pairs, d.traceDevices().toString());
    }
  }

  static Series measure(String workload, String tracing, Work work, int[] kinds, int pairs, long expectedKernels) {
    return measure(workload, tracing, work, kinds, pairs, expectedKernels, () -> { }, 0);
  }

  /**
   * As above, with {@code afterStart} run between the tracer's start and the timed region (its time counted in the
   * start), launching {@code afterStartKernels} kernels.
   */
  static Series measure(String workload, String tracing, Work work, int[] kinds, int pairs, long expectedKernels,
      Work afterStart, int afterStartKernels) {
    LongAdder kernels = new LongAdder();
    CuptiTracer tracer = new CuptiTracer(List.of(), Map.of(), Ticker.system(), kinds);
    long[] untraced = new long[pairs];
    long[] traced = new long[pairs];
    long[] starts = new long[pairs];
    long[] stops = new long[pairs];
    long kernelsPerRun = -1;
    for (int p = -WARMUP_PAIRS; p < pairs; p++) {
      boolean tracedFirst = (p & 1) != 0;
      long u = 0;
      long t = 0;
      long st = 0;
      long sp = 0;
      for (int k = 0; k < 2; k++) {
        boolean traceThis = (k == 0) == tracedFirst;
        if (traceThis) {
          kernels.reset();
          long s0 = System.nanoTime();
          tracer.start(r -> {
            if (r instanceof KernelRecord) {
              kernels.increment();
            }
          });
          afterStart.run();
          long s1 = System.nanoTime();
          work.run();
          long s2 = System.nanoTime();
          tracer.stop();
          long s3 = System.nanoTime();
          t = s2 - s1;
          st = s1 - s0;
          sp = s3 - s2;
          kernelsPerRun = kernels.sum() - afterStartKernels;
          if (kernelsPerRun != expectedKernels) {
            throw new IllegalStateException(workload + ": traced run saw " + kernels.sum() + " kernels, expected "
                + (expectedKernels + afterStartKernels) + " (" + tracer.stats() + ")");
          }
        } else {
          long s1 = System.nanoTime();
          work.run();
          u = System.nanoTime() - s1;
        }
      }
      if (p >= 0) {
        untraced[p] = u;
        traced[p] = t;
        starts[p] = st;
        stops[p] = sp;
      }
    }
    Series s = new Series(workload, tracing, kindNames(kinds), untraced, traced, starts, stops, kernelsPerRun,
        tracer.stats());
    double[] r = s.ratios();
    System.out.printf(Locale.ROOT, "%-13s %-39s traced/untraced median %.4f  [min %.4f, q1 %.4f, q3 %.4f, max %.4f]"
            + "  added per launch median %.3f us;  with stop %.4f;  untraced median %.3f ms, traced median %.3f ms,"
            + " start median %.3f ms, stop median %.3f ms%n", workload, tracing, quantile(r, 0.5), quantile(r, 0),
        quantile(r, 0.25), quantile(r, 0.75), quantile(r, 1), quantile(s.usAddedPerLaunch(), 0.5),
        quantile(s.ratiosWithStop(), 0.5), quantile(untraced, 0.5) / 1e6, quantile(traced, 0.5) / 1e6,
        quantile(starts, 0.5) / 1e6, quantile(stops, 0.5) / 1e6);
    return s;
  }

  static double quantile(double[] v, double q) {
    double[] s = v.clone();
    Arrays.sort(s);
    double pos = q * (s.length - 1);
    int lo = (int) Math.floor(pos);
    int hi = (int) Math.ceil(pos);
    return s[lo] + (s[hi] - s[lo]) * (pos - lo);
  }

  static double quantile(long[] v, double q) {
    return quantile(Arrays.stream(v).asDoubleStream().toArray(), q);
  }

  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> {
          if (ch < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  static String kindNames(int[] kinds) {
    return Arrays.stream(kinds).mapToObj(CuptiTracer::kindName).collect(Collectors.joining(","));
  }

  static void write(Path out, List<Series> all, int pairs, String devices) throws IOException {
    Files.createDirectories(out);
    StringBuilder j = new StringBuilder("{\n");
    Map<String, String> head = new LinkedHashMap<>();
    head.put("benchmark", json("CuptiOverheadBench"));
    head.put("devices", json(devices));
    head.put("pairs", Integer.toString(pairs));
    head.put("warmupPairs", Integer.toString(WARMUP_PAIRS));
    head.put("denseLaunches", Integer.toString(DENSE_LAUNCHES));
    head.put("denseElements", Integer.toString(DENSE_N));
    head.put("gemmN", Integer.toString(GEMM_N));
    head.put("gemmLaunches", Integer.toString(GEMM_LAUNCHES));
    head.put("timing", json("host wall time (System.nanoTime) from the first launch to the end of cuCtxSynchronize;"
        + " tracer started before and stopped after the timed region; pairs alternate which run goes first"));
    head.forEach((k, v) -> j.append("  ").append(json(k)).append(": ").append(v).append(",\n"));
    j.append("  \"series\": [\n");
    for (int i = 0; i < all.size(); i++) {
      Series s = all.get(i);
      double[] r = s.ratios();
      j.append("    {\"workload\": ").append(json(s.workload())).append(", \"tracing\": ").append(json(s.tracing()))
          .append(String.format(Locale.ROOT, ", \"ratioMedian\": %.5f, \"ratioMin\": %.5f, \"ratioQ1\": %.5f,"
                  + " \"ratioQ3\": %.5f, \"ratioMax\": %.5f", quantile(r, 0.5), quantile(r, 0), quantile(r, 0.25),
              quantile(r, 0.75), quantile(r, 1)))
          .append(", \"untracedNs\": ").append(Arrays.toString(s.untracedNs()))
          .append(", \"tracedNs\": ").append(Arrays.toString(s.tracedNs()))
          .append(String.format(Locale.ROOT, ", \"usAddedPerLaunchMedian\": %.4f, \"ratioWithStopMedian\": %.5f",
              quantile(s.usAddedPerLaunch(), 0.5), quantile(s.ratiosWithStop(), 0.5)))
          .append(", \"kinds\": ").append(json(s.kinds()))
          .append(", \"startNs\": ").append(Arrays.toString(s.startNs()))
          .append(", \"stopNs\": ").append(Arrays.toString(s.stopNs()))
          .append(", \"kernelsPerTracedRun\": ").append(s.kernelsPerTracedRun())
          .append(", \"lastStats\": ").append(json(String.valueOf(s.lastStats())))
          .append(i + 1 < all.size() ? "},\n" : "}\n");
    }
    j.append("  ]\n}\n");
    Files.writeString(out.resolve("cupti-overhead.json"), j.toString());
  }
}
