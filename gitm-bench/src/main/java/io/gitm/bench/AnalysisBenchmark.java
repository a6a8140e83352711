package io.gitm.bench;

import io.gitm.analysis.attribution.Attribution;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.monitor.Monitor;
import io.gitm.device.HardwareSpec;
import io.gitm.planner.Graph;
import io.gitm.planner.Planner;
import io.gitm.sim.SimSpec;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.Precision;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.WorkRecord;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The analysis' throughput: residuals and attribution ({@code Planner.predict}, {@code Monitor.check},
 * {@code Attribution.attribute}) of a synthetic trace of one million kernels in a heap of 1 GiB (goal: at most 5 s on
 * the 2-core development machine). The trace is a seeded two-stream pipeline in iterations of eight kernels: per
 * iteration an upload and a download (with their API calls), eight launches with their work records (and measured
 * traffic for half of them), pool allocations and frees, a stream wait, an event synchronization and an iteration
 * marker; a state sample every millisecond; a few slow kernels, a clock drop for a while and some plain allocations,
 * so that every detector has work. The score is seconds per analysis.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class AnalysisBenchmark {
  static final int KERNELS = 1_000_000;
  static final int PER_ITERATION = 8;
  static final String[] NAMES = {"decode", "route_hist", "route_chunks", "route_scan", "route_scatter", "book",
      "features", "mlp"};

  private List<TraceRecord> trace;
  private HardwareSpec hw;

  @Setup(Level.Trial)
  public void makeTrace() {
    hw = SimSpec.preset("h200").hardware();
    trace = trace(KERNELS, 20261130L);
  }

  /** A seeded synthetic trace of {@code kernels} kernels (a multiple of eight). */
  static List<TraceRecord> trace(int kernels, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int iterations = kernels / PER_ITERATION;
    List<TraceRecord> t = new ArrayList<>(iterations * 48);
    long host = 1_000_000;
    long corr = 1;
    long[] streamTail = new long[2];
    long nextSample = 0;
    for (int it = 0; it < iterations; it++) {
      long iterStart = host;
      int s = it % 2;
      int stream = 13 + s;
      boolean clockDrop = it % 10_000 >= 9_000;
      for (int a = 0; a < 2; a++) {
        boolean plain = it % 500 == 0;
        long d = plain ? 20_000 + rnd.nextInt(10_000) : 1_000;
        t.add(new ApiCallRecord(ApiKind.ALLOC, plain ? "cuMemAlloc_v2" : "cuMemAllocAsync", 1, corr++, host,
            host + d));
        host += d;
      }
      // upload
      long c = corr++;
      t.add(new ApiCallRecord(ApiKind.COPY, "cuMemcpyAsync", 1, c, host, host + 2_000));
      long cs = Math.max(host + 2_000, streamTail[s]);
      long ce = cs + 5_000 + rnd.nextInt(500);
      t.add(new CopyRecord(CopyKind.HTOD, 140_000, MemoryKind.PINNED, MemoryKind.DEVICE, 0, 20 + s, c, cs, ce));
      host += 2_000;
      t.add(new ApiCallRecord(ApiKind.SYNC, "cuStreamWaitEvent", 1, corr, host, host + 2_000));
      t.add(new SyncRecord(SyncKind.STREAM_WAIT_EVENT, 0, stream, corr++, host, host + 2_000));
      host += 2_000;
      long tail = Math.max(streamTail[s], ce);
      for (int k = 0; k < PER_ITERATION; k++) {
        long kc = corr++;
        t.add(new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 1, kc, host, host + 4_800));
        host += 4_800;
        long base = k == 5 ? 250_000 : 1_500 + k * 800;
        long dur = (long) (base * (clockDrop ? 1.8 : 1.0) * (0.97 + 0.06 * rnd.nextDouble()))
            * (rnd.nextInt(1000) == 0 ? 3 : 1);
        long ks = Math.max(host, tail);
        long ke = ks + dur;
        tail = ke;
        int blocks = k == 5 ? 4 : 32;
        t.add(new KernelRecord(NAMES[k], 0, stream, kc, ks, ke, Dim3.of(blocks), Dim3.of(128), 32, 0, 0));
        long bytes = 100_000 + k * 20_000L;
        t.add(new WorkRecord(NAMES[k], 0, stream, kc, host, bytes * 2.0, Precision.INT32, bytes / 2, bytes / 2,
            k == 5 ? 600 : 2, k == 5 ? 6_000 : 0));
        if (k % 2 == 0) {
          long measured = k == 4 && it % 3 == 0 ? bytes * 3 : bytes;
          t.add(new TrafficRecord(0, kc, ks, measured / 2, measured / 2, "bench"));
        }
      }
      // download
      c = corr++;
      t.add(new ApiCallRecord(ApiKind.COPY, "cuMemcpyAsync", 1, c, host, host + 2_000));
      long ds = Math.max(host + 2_000, tail);
      long de = ds + 3_500 + rnd.nextInt(400);
      t.add(new CopyRecord(CopyKind.DTOH, 80_000, MemoryKind.DEVICE, MemoryKind.PINNED, 0, 30 + s, c, ds, de));
      streamTail[s] = de;
      host += 2_000;
      t.add(new ApiCallRecord(ApiKind.OTHER, "cuEventRecord", 1, corr++, host, host + 2_000));
      host += 2_000;
      // wait for the other stream's previous batch
      long waitEnd = Math.max(host + 2_000, streamTail[1 - s]);
      t.add(new ApiCallRecord(ApiKind.SYNC, "cuEventSynchronize", 1, corr, host, waitEnd));
      t.add(new SyncRecord(SyncKind.EVENT, 0, 30 + (1 - s), corr++, host, waitEnd));
      host = waitEnd;
      for (int a = 0; a < 2; a++) {
        t.add(new ApiCallRecord(ApiKind.FREE, "cuMemFreeAsync", 1, corr++, host, host + 2_000));
        host += 2_000;
      }
      t.add(new MarkerRecord("iteration " + it, 1, iterStart, host));
      while (nextSample <= host) {
        Map<StateField, Double> m = new EnumMap<>(StateField.class);
        boolean dropped = clockDrop && nextSample >= iterStart - 1_000_000;
        m.put(StateField.SM_CLOCK, dropped ? 1100.0 : 1980.0);
        m.put(StateField.CLOCK_EVENT_REASONS, dropped ? 2.0 : 0.0);
        m.put(StateField.POWER, 300.0 + rnd.nextInt(50));
        m.put(StateField.TEMPERATURE, 55.0);
        m.put(StateField.GPU_UTILIZATION, 90.0);
        t.add(StateSample.of(0, nextSample, m));
        nextSample += 1_000_000;
      }
    }
    return t;
  }

  /** Planner, monitor and attribution over the whole trace. */
  @Benchmark
  public List<Hypothesis> analyze() {
    Graph g = Planner.predict(trace, hw);
    Monitor.Result m = Monitor.check(g, trace, hw.launchLatencyNs());
    return Attribution.attribute(trace, g, m, hw);
  }

  /** {@code AnalysisBenchmark [kernels]}: builds the trace, runs the analysis once and prints what each stage took. */
  public static void main(String[] args) {
    int kernels = args.length > 0 ? Integer.parseInt(args[0]) : KERNELS;
    HardwareSpec hw = SimSpec.preset("h200").hardware();
    long t0 = System.nanoTime();
    List<TraceRecord> t = trace(kernels, 20261130L);
    long t1 = System.nanoTime();
    for (int round = 0; round < 3; round++) {
      long a = System.nanoTime();
      Graph g = Planner.predict(t, hw);
      long b = System.nanoTime();
      Monitor.Result m = Monitor.check(g, t, hw.launchLatencyNs());
      long c = System.nanoTime();
      List<Hypothesis> h = Attribution.attribute(t, g, m, hw);
      long d = System.nanoTime();
      System.out.printf("%d records (built in %.2f s): predict %.2f s, check %.2f s, attribute %.2f s, total %.2f s;"
          + " %d violations, hypotheses %s%n", t.size(), (t1 - t0) / 1e9, (b - a) / 1e9, (c - b) / 1e9, (d - c) / 1e9,
          (d - a) / 1e9, m.violations().size(), h.stream().map(x -> x.cause().name()).toList());
    }
  }
}
