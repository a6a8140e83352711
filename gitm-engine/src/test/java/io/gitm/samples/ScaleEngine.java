package io.gitm.samples;

import io.gitm.device.Buffer;
import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.HostMemory;
import io.gitm.device.Kernel;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Module;
import io.gitm.device.Stream;
import io.gitm.trace.Precision;
import io.gitm.trace.Work;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.IterationResult;
import io.gitm.workload.Knob;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadSpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A user's own engine, as the embedded API sample shows it: batches of floats copied to the device, scaled by one
 * kernel, copied back. It is written the straightforward way (pageable host buffers, an allocation per batch) and
 * honours the two knobs that change that, so gitm has something to find and something to change.
 */
public final class ScaleEngine implements Workload {
  static final int N = 1 << 18;
  static final int BATCHES = 400;

  static final KernelModule MODULE = new KernelModule("scale", "/kernels/scale.cu", List.of(new KernelDef("scale",
      (c, a) -> new Work(2.0 * (Integer) a[2], Precision.FP32, 4L * (Integer) a[2], 4L * (Integer) a[2]),
      (c, args) -> {
        ByteBuffer x = args.memory(0).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer y = args.memory(1).order(ByteOrder.LITTLE_ENDIAN);
        int n = args.i32(2);
        float a = args.f32(3);
        float b = args.f32(4);
        for (int i = 0; i < n; i++) {
          y.putFloat(4 * i, a * x.getFloat(4 * i) + b);
        }
      })));

  @Override
  public WorkloadSpec spec() {
    return new WorkloadSpec("scale-sample", "the embedded API's sample engine: y = a x + b over batches of floats",
        List.of(MODULE), Set.of(Knob.HOST_MEMORY, Knob.ALLOCATION), Map.of(), 0, "floats/s", true);
  }

  @Override
  public Session open(Device device, ExecutionConfig config, Path dataDir) {
    return new ScaleSession(device, config);
  }

  static final class ScaleSession implements Session {
    private final Device device;
    private final ExecutionConfig config;
    private final Module module;
    private final Kernel kernel;
    private final HostMemory in;
    private final HostMemory out;
    private final Stream stream;
    private final MessageDigest digest;
    private DeviceMemory x;
    private DeviceMemory y;
    private int batch;

    ScaleSession(Device device, ExecutionConfig config) {
      this.device = device;
      this.config = config;
      this.module = device.load(MODULE);
      this.kernel = module.kernel("scale");
      this.in = device.allocHost(4L * N, config.hostMemory());
      this.out = device.allocHost(4L * N, config.hostMemory());
      this.stream = device.createStream(0);
      try {
        this.digest = MessageDigest.getInstance("SHA-256");
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
      if (config.allocation() == ExecutionConfig.Allocation.PREALLOCATED) {
        x = device.malloc(4L * N);
        y = device.malloc(4L * N);
      }
    }

    @Override
    public IterationResult step() {
      long t0 = device.clock().nanos();
      ByteBuffer b = in.buffer().order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < N; i++) {
        b.putFloat(4 * i, (float) ((batch * 31L + i) % 1000));
      }
      boolean perBatch = config.allocation() != ExecutionConfig.Allocation.PREALLOCATED;
      boolean pool = config.allocation() == ExecutionConfig.Allocation.POOL;
      if (perBatch) {
        x = pool ? device.mallocAsync(4L * N, stream) : device.malloc(4L * N);
        y = pool ? device.mallocAsync(4L * N, stream) : device.malloc(4L * N);
      }
      device.copyAsync(x, 0, (Buffer) in, 0, 4L * N, stream);
      device.launch(kernel, LaunchConfig.cover(N, 256), stream, x, y, N, 1.5f, 2.0f);
      device.copyAsync((Buffer) out, 0, y, 0, 4L * N, stream);
      if (perBatch) {
        if (pool) {
          device.freeAsync(x, stream);
          device.freeAsync(y, stream);
        } else {
          stream.synchronize();
          x.close();
          y.close();
        }
      }
      stream.synchronize();
      ByteBuffer o = out.buffer().order(ByteOrder.LITTLE_ENDIAN);
      byte[] bytes = new byte[4 * N];
      o.get(0, bytes);
      digest.update(bytes);
      batch++;
      return new IterationResult(device.clock().nanos() - t0, N, Map.of());
    }

    @Override
    public boolean hasNext() {
      return batch < BATCHES;
    }

    @Override
    public OutputDigest output() {
      try {
        MessageDigest copy = (MessageDigest) digest.clone();
        return new OutputDigest(HexFormat.of().formatHex(copy.digest()), new double[] {batch});
      } catch (CloneNotSupportedException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      if (!perBatchClosed()) {
        x.close();
        y.close();
      }
      stream.close();
      in.close();
      out.close();
      module.close();
    }

    private boolean perBatchClosed() {
      return config.allocation() != ExecutionConfig.Allocation.PREALLOCATED;
    }
  }
}
