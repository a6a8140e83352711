package io.gitm.planner;

import io.gitm.api.Ticker;
import io.gitm.device.Blas;
import io.gitm.device.Buffer;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceMemory;
import io.gitm.device.Event;
import io.gitm.device.EventTracer;
import io.gitm.device.GraphExec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.KernelArgs;
import io.gitm.device.KernelDef;
import io.gitm.device.KernelModule;
import io.gitm.device.LaunchConfig;
import io.gitm.device.MathMode;
import io.gitm.device.MemInfo;
import io.gitm.device.MemPool;
import io.gitm.device.Module;
import io.gitm.device.StateSampler;
import io.gitm.device.Stream;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.Work;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A device with known ceilings and a hand-kept clock, for checking the calibrator's arithmetic: synchronous copies
 * advance host time by bytes / bandwidth, a launch costs the host a fixed time (plus a small deterministic jitter),
 * kernels and GEMMs occupy one in-order device timeline for work / ceiling, and events read that timeline rounded down
 * to a fixed resolution. Kernels run their host emulation, so copies move real bytes.
 */
final class FakeTimedDevice implements Device {
  final double memoryBandwidth = 3.0e12;
  final Map<MathMode, Double> flops = Map.of(MathMode.DEFAULT, 50e12, MathMode.TF32, 400e12, MathMode.BF16, 700e12);
  final double pinnedBandwidth = 50e9;
  final double pageableBandwidth = 12e9;
  final long launchNs = 1000;
  final long eventResolutionNs = 500;
  private long host;
  private long deviceBusyUntil;
  private long launches;
  private final Stream stream = new Stream() {
    @Override
    public int id() {
      return 0;
    }

    @Override
    public int priority() {
      return 0;
    }

    @Override
    public void synchronize() {
      host = Math.max(host, deviceBusyUntil);
    }

    @Override
    public void waitEvent(Event event) {
    }

    @Override
    public void close() {
    }
  };

  private final class Mem implements DeviceMemory {
    final ByteBuffer data;

    Mem(long bytes) {
      data = ByteBuffer.allocate(Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public boolean pooled() {
      return false;
    }

    @Override
    public long bytes() {
      return data.capacity();
    }

    @Override
    public void close() {
    }
  }

  private final class Host implements HostMemory {
    final ByteBuffer data;
    final HostMemoryKind kind;

    Host(long bytes, HostMemoryKind kind) {
      this.data = ByteBuffer.allocate(Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
      this.kind = kind;
    }

    @Override
    public HostMemoryKind kind() {
      return kind;
    }

    @Override
    public ByteBuffer buffer() {
      return data.duplicate().order(ByteOrder.LITTLE_ENDIAN).clear();
    }

    @Override
    public long bytes() {
      return data.capacity();
    }

    @Override
    public void close() {
    }
  }

  private final class Ev implements Event {
    long at;

    @Override
    public void record(Stream s) {
      long t = Math.max(host, deviceBusyUntil);
      at = t / eventResolutionNs * eventResolutionNs;
    }

    @Override
    public void synchronize() {
      host = Math.max(host, at);
    }

    @Override
    public float elapsedMillisSince(Event start) {
      return (at - ((Ev) start).at) / 1e6f;
    }

    @Override
    public void close() {
    }
  }

  private void runOnDevice(double seconds) {
    deviceBusyUntil = Math.max(deviceBusyUntil, host) + Math.round(seconds * 1e9);
  }

  private static ByteBuffer bytes(Buffer b) {
    return b instanceof Mem m ? m.data : ((Host) b).data;
  }

  @Override
  public DeviceInfo info() {
    return new DeviceInfo("fake", DeviceKind.SIMULATED, 0, "Fake GPU", "GPU-fake", "9.0", 132, 80L << 30, 50 << 20,
        "fake-1", 0, -3);
  }

  @Override
  public Ticker clock() {
    return () -> host;
  }

  @Override
  public Stream defaultStream() {
    return stream;
  }

  @Override
  public Stream createStream(int priority) {
    return stream;
  }

  @Override
  public Event createEvent(boolean timing) {
    return new Ev();
  }

  @Override
  public DeviceMemory malloc(long bytes) {
    return new Mem(bytes);
  }

  @Override
  public DeviceMemory mallocAsync(long bytes, Stream stream) {
    return new Mem(bytes);
  }

  @Override
  public void freeAsync(DeviceMemory memory, Stream stream) {
  }

  @Override
  public MemPool defaultPool() {
    throw new UnsupportedOperationException();
  }

  @Override
  public HostMemory allocHost(long bytes, HostMemoryKind kind) {
    return new Host(bytes, kind);
  }

  @Override
  public void copy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long n) {
    stream.synchronize();
    ByteBuffer d = bytes(dst).duplicate();
    ByteBuffer s = bytes(src).duplicate();
    s.position((int) srcOffset).limit((int) (srcOffset + n));
    d.position((int) dstOffset);
    d.put(s);
    HostMemoryKind kind = src instanceof Host h ? h.kind : dst instanceof Host h ? h.kind : null;
    double bw = kind == HostMemoryKind.PINNED ? pinnedBandwidth : kind == HostMemoryKind.PAGEABLE
        ? pageableBandwidth : memoryBandwidth / 2;
    host += Math.round(n / bw * 1e9);
  }

  @Override
  public void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, Stream stream) {
    copy(dst, dstOffset, src, srcOffset, bytes);
  }

  @Override
  public void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream) {
  }

  @Override
  public Module load(KernelModule module) {
    return new Module() {
      @Override
      public KernelModule source() {
        return module;
      }

      @Override
      public Kernel kernel(String entry) {
        KernelDef def = module.kernel(entry).orElseThrow();
        return new Kernel() {
          @Override
          public KernelDef def() {
            return def;
          }

          @Override
          public int registersPerThread() {
            return -1;
          }

          @Override
          public void setPreferredSharedCarveout(int percent) {
          }

          @Override
          public void setMaxDynamicSharedBytes(int bytes) {
          }
        };
      }

      @Override
      public void close() {
      }
    };
  }

  @Override
  public void launch(Kernel kernel, LaunchConfig config, Stream s, Object... args) {
    host += launchNs + (launches++ * 137) % 700;
    KernelDef def = kernel.def();
    def.emulation().accept(config, new KernelArgs() {
      @Override
      public int count() {
        return args.length;
      }

      @Override
      public ByteBuffer memory(int i) {
        return ((Mem) args[i]).data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
      }

      @Override
      public int i32(int i) {
        return (Integer) args[i];
      }

      @Override
      public long i64(int i) {
        return (Long) args[i];
      }

      @Override
      public float f32(int i) {
        return (Float) args[i];
      }

      @Override
      public double f64(int i) {
        return (Double) args[i];
      }
    });
    Work w = def.work().apply(config, args);
    runOnDevice(w.bytes() / memoryBandwidth);
  }

  @Override
  public void beginCapture(Stream s) {
    throw new UnsupportedOperationException();
  }

  @Override
  public GraphExec endCapture(Stream s) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void launchGraph(GraphExec graph, Stream s) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void synchronize() {
    stream.synchronize();
  }

  @Override
  public MemInfo memInfo() {
    return new MemInfo(80L << 30, 80L << 30);
  }

  @Override
  public int maxActiveBlocksPerMultiprocessor(Kernel kernel, int blockSize, int dynamicSharedBytes) {
    return 8;
  }

  @Override
  public int suggestedBlockSize(Kernel kernel, int dynamicSharedBytes) {
    return 256;
  }

  @Override
  public void setL2AccessWindow(Stream s, DeviceMemory memory, long offset, long bytes, float hitRatio) {
  }

  private final Blas blas = new Blas() {
    MathMode mode = MathMode.DEFAULT;

    @Override
    public MathMode mathMode() {
      return mode;
    }

    @Override
    public void setMathMode(MathMode m) {
      mode = m;
    }

    @Override
    public void sgemm(Stream s, boolean transA, boolean transB, int m, int n, int k, float alpha, DeviceMemory a,
        int lda, DeviceMemory b, int ldb, float beta, DeviceMemory c, int ldc) {
      runOnDevice(2.0 * m * n * k / flops.get(mode));
    }
  };

  @Override
  public Blas blas() {
    return blas;
  }

  @Override
  public StateSampler sampler() {
    return new StateSampler() {
      @Override
      public Set<StateField> supported() {
        return EnumSet.of(StateField.SM_CLOCK);
      }

      @Override
      public StateSample sample() {
        return StateSample.of(0, host, Map.of(StateField.SM_CLOCK, 1980.0));
      }
    };
  }

  @Override
  public EventTracer tracer() {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() {
  }
}
