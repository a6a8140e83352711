package io.gitm.analysis.attribution;

import io.gitm.analysis.Analysis;
import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Stream;
import io.gitm.sim.SimDevice;
import io.gitm.sim.SimSpec;
import io.gitm.trace.Dim3;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.Work;
import java.util.ArrayList;
import java.util.List;

/**
 * A small job on the simulated device where every device fault bites (unlike hft-lob, whose chain-bound book kernel
 * hides the bandwidth, multiprocessor and link faults): per iteration a pinned 8 MiB upload, a bandwidth-bound kernel
 * over 256 MiB, a compute-bound kernel that fills the device, a 1 MiB download and a stream synchronization; a state
 * sample and an iteration marker after each iteration.
 */
final class SyntheticJob {
  static final KernelDef STREAM = new KernelDef("stream_copy",
      (c, a) -> new Work(0, Precision.FP32, (Long) a[0] / 2, (Long) a[0] / 2), (c, a) -> {
      });
  static final KernelDef COMPUTE = new KernelDef("fma_loop",
      (c, a) -> new Work((Double) a[0], Precision.FP32, 0, 0), (c, a) -> {
      });
  static final KernelModule MODULE = new KernelModule("synthetic", "/kernels/synthetic.cu", List.of(STREAM, COMPUTE));
  static final LaunchConfig BIG = new LaunchConfig(Dim3.of(132 * 64), Dim3.of(256), 0);

  private SyntheticJob() {}

  /** Runs {@code iterations} iterations with {@code faults} and returns the trace; {@code flops} per compute kernel. */
  static List<TraceRecord> run(String faults, long seed, int iterations, double flops, TraceMeta[] meta) {
    List<TraceRecord> rs = new ArrayList<>();
    try (SimDevice d = SimDevice.open(SimSpec.preset("h200"), seed, faults)) {
      d.tracer().start(rs::add);
      meta[0] = d.tracer().meta();
      Kernel stream = d.load(MODULE).kernel("stream_copy");
      Kernel compute = d.load(MODULE).kernel("fma_loop");
      Stream s = d.createStream(0);
      HostMemory in = d.allocHost(8 << 20, HostMemoryKind.PINNED);
      HostMemory out = d.allocHost(1 << 20, HostMemoryKind.PINNED);
      DeviceMemory m = d.malloc(8 << 20);
      rs.add(d.sampler().sample());
      for (int i = 0; i < iterations; i++) {
        long t0 = d.clock().nanos();
        d.copyAsync(m, 0, in, 0, 8 << 20, s);
        d.launch(stream, BIG, s, 256L << 20);
        d.launch(compute, BIG, s, flops);
        d.copyAsync(out, 0, m, 0, 1 << 20, s);
        s.synchronize();
        rs.add(new MarkerRecord("iteration " + i, 1, t0, d.clock().nanos()));
        rs.add(d.sampler().sample());
      }
      d.tracer().stop();
    }
    return rs;
  }

  static Analysis.Result analyze(String faults, long seed, int iterations, double flops) {
    TraceMeta[] meta = new TraceMeta[1];
    List<TraceRecord> rs = run(faults, seed, iterations, flops, meta);
    return Analysis.analyze(meta[0], rs, SimSpec.preset("h200").hardware());
  }
}
