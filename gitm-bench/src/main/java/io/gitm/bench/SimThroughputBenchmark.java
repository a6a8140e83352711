package io.gitm.bench;

import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.SchedulingMode;
import io.gitm.device.Stream;
import io.gitm.trace.Precision;
import io.gitm.trace.Work;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Simulated seconds per wall second of the {@code sim} device on a launch-heavy loop. Per loop iteration: a pinned
 * upload of {@code copyBytes} (whose bytes the sim really moves), a pool allocation, {@code kernels} small kernels on
 * one stream, a free; a stream synchronization every 16 iterations; no tracer. One benchmark operation simulates
 * {@link #SIMULATED_NS} of that loop, so the score (operations per second) times 0.1 is simulated seconds per wall
 * second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SimThroughputBenchmark {
  /** Simulated time per benchmark operation: 100 ms. */
  static final long SIMULATED_NS = 100_000_000L;

  private static final KernelDef SMALL = new KernelDef("small_update",
      (c, a) -> new Work(2.0 * (Integer) a[1], Precision.FP32, 8L * (Integer) a[1], 4L * (Integer) a[1]),
      (c, a) -> {
      });
  private static final KernelModule MODULE = new KernelModule("bench", "/kernels/bench.cu", List.of(SMALL));

  @Param({"8"})
  public int kernels;

  @Param({"4096", "65536"})
  public int copyBytes;

  @Param({""})
  public String faults;

  private Device device;
  private Kernel kernel;
  private Stream stream;
  private HostMemory host;
  private DeviceMemory buffer;
  private LaunchConfig config;
  private long iterations;

  @Setup(Level.Trial)
  public void open() {
    DeviceProvider p = DeviceProvider.all().stream().filter(x -> x.kind().equals("sim")).findFirst().orElseThrow();
    device = p.open(new DeviceRequest(0, SchedulingMode.AUTO, Map.of("seed", "1", "faults", faults)));
    kernel = device.load(MODULE).kernel("small_update");
    stream = device.createStream(0);
    host = device.allocHost(copyBytes, HostMemoryKind.PINNED);
    buffer = device.malloc(64 * 1024);
    config = LaunchConfig.cover(1 << 16, 256);
    device.defaultPool().setReleaseThreshold(Long.MAX_VALUE);
  }

  @TearDown(Level.Trial)
  public void close() {
    device.close();
  }

  /** Simulates 100 ms of the loop; returns the simulated clock. */
  @Benchmark
  public long simulate100ms() {
    long end = device.clock().nanos() + SIMULATED_NS;
    while (device.clock().nanos() < end) {
      device.copyAsync(buffer, 0, host, 0, copyBytes, stream);
      DeviceMemory tmp = device.mallocAsync(1 << 20, stream);
      for (int i = 0; i < kernels; i++) {
        device.launch(kernel, config, stream, buffer, 1 << 16);
      }
      device.freeAsync(tmp, stream);
      if (++iterations % 16 == 0) {
        stream.synchronize();
      }
    }
    return device.clock().nanos();
  }
}
