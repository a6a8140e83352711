package io.gitm.sim;

import io.gitm.device.Device;
import io.gitm.device.DeviceRequest;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.SchedulingMode;
import io.gitm.trace.Dim3;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.Work;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Test kernels and helpers: a real saxpy, and kernels whose declared work is a launch argument. */
final class Fixtures {
  private Fixtures() {
  }

  /** saxpy(y, x, a, n): y = a x + y, 12 bytes and 2 flops per element. */
  static final KernelDef SAXPY = new KernelDef("saxpy",
      (c, a) -> new Work(2.0 * (Integer) a[3], Precision.FP32, 8L * (Integer) a[3], 4L * (Integer) a[3]),
      (c, a) -> {
        ByteBuffer y = a.memory(0);
        ByteBuffer x = a.memory(1);
        float alpha = a.f32(2);
        int n = a.i32(3);
        for (int i = 0; i < n; i++) {
          y.putFloat(4 * i, alpha * x.getFloat(4 * i) + y.getFloat(4 * i));
        }
      });

  /** stream(bytes): moves {@code bytes} (half read, half written), no flops, no effect. */
  static final KernelDef STREAM = new KernelDef("stream_copy",
      (c, a) -> new Work(0, Precision.FP32, (Long) a[0] / 2, (Long) a[0] / 2), (c, a) -> {
      });

  /** compute(flops): {@code flops} FP32 operations, no bytes, no effect. */
  static final KernelDef COMPUTE = new KernelDef("fma_loop",
      (c, a) -> new Work((Double) a[0], Precision.FP32, 0, 0), (c, a) -> {
      });

  static final KernelModule MODULE = new KernelModule("fixtures", "/kernels/fixtures.cu",
      List.of(SAXPY, STREAM, COMPUTE));

  /** A grid that fills an H200 many times over: 132 x 8 x 16 blocks of 256 threads. */
  static final LaunchConfig BIG = new LaunchConfig(Dim3.of(132 * 8 * 16), Dim3.of(256), 0);

  /** Ten blocks of 256 threads: ten multiprocessors at most. */
  static final LaunchConfig SMALL = new LaunchConfig(Dim3.of(10), Dim3.of(256), 0);

  static SimDevice open(String faults) {
    return open(faults, 0, 0.0);
  }

  static SimDevice open(String faults, long seed, double jitter) {
    Map<String, String> o = new HashMap<>();
    o.put("faults", faults);
    o.put("seed", Long.toString(seed));
    o.put("jitter", Double.toString(jitter));
    return (SimDevice) new SimDeviceProvider().open(new DeviceRequest(0, SchedulingMode.AUTO, o));
  }

  static List<TraceRecord> trace(Device d) {
    List<TraceRecord> out = new ArrayList<>();
    d.tracer().start(out::add);
    return out;
  }

  static <T> List<T> only(List<TraceRecord> rs, Class<T> type) {
    return rs.stream().filter(type::isInstance).map(type::cast).toList();
  }
}
