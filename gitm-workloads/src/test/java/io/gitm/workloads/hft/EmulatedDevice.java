package io.gitm.workloads.hft;

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
import io.gitm.device.MemInfo;
import io.gitm.device.MemPool;
import io.gitm.device.Module;
import io.gitm.device.StateSampler;
import io.gitm.device.Stream;
import io.gitm.device.UnsupportedFeatureException;
import io.gitm.trace.DeviceKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A test-only device that runs every kernel's emulation at once, in call order (so ordering bugs between streams do
 * not show here), counting the calls a configuration should change. Captured stream work is replayed by graphs.
 */
final class EmulatedDevice implements Device {
  final Map<String, Integer> calls = new HashMap<>();
  final Map<HostMemoryKind, Integer> hostAllocs = new EnumMap<>(HostMemoryKind.class);
  final List<Integer> streamPriorities = new ArrayList<>();
  private final List<Runnable> capture = new ArrayList<>();
  private Stream capturing;
  private long live;
  private int nextStream = 1;
  private long poolThreshold;
  private final Stream defaultStream = new S(0, 0);

  private void count(String what) {
    calls.merge(what, 1, Integer::sum);
  }

  int count(String what, int dflt) {
    return calls.getOrDefault(what, dflt);
  }

  long liveBytes() {
    return live;
  }

  private final class S implements Stream {
    final int id;
    final int priority;

    S(int id, int priority) {
      this.id = id;
      this.priority = priority;
    }

    @Override
    public int id() {
      return id;
    }

    @Override
    public int priority() {
      return priority;
    }

    @Override
    public void synchronize() {
    }

    @Override
    public void waitEvent(Event event) {
      count("waitEvent");
    }

    @Override
    public void close() {
    }
  }

  private final class Mem implements DeviceMemory {
    final ByteBuffer data;
    final boolean pooled;
    boolean closed;

    Mem(long bytes, boolean pooled) {
      data = ByteBuffer.allocate(Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
      this.pooled = pooled;
      live += bytes;
    }

    @Override
    public boolean pooled() {
      return pooled;
    }

    @Override
    public long bytes() {
      return data.capacity();
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        live -= data.capacity();
      }
    }
  }

  private static final class Host implements HostMemory {
    final ByteBuffer data;
    final HostMemoryKind kind;

    Host(long bytes, HostMemoryKind kind) {
      data = ByteBuffer.allocate(Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
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

  private static ByteBuffer bytesOf(Buffer b) {
    if (b instanceof Mem m) {
      if (m.closed) {
        throw new IllegalStateException("use of freed device memory");
      }
      return m.data;
    }
    return ((Host) b).data;
  }

  /** Runs now, or records into the graph being captured when {@code s} is capturing. */
  private void run(Stream s, Runnable r) {
    if (capturing != null && capturing == s) {
      capture.add(r);
    } else {
      r.run();
    }
  }

  @Override
  public DeviceInfo info() {
    return new DeviceInfo("emulated", DeviceKind.SIMULATED, 0, "test emulation", "none", "9.0", 1, 1L << 34, 0,
        "test", 0, -3);
  }

  @Override
  public Ticker clock() {
    return System::nanoTime;
  }

  @Override
  public Stream defaultStream() {
    return defaultStream;
  }

  @Override
  public Stream createStream(int priority) {
    count("createStream");
    streamPriorities.add(priority);
    return new S(nextStream++, priority);
  }

  @Override
  public Event createEvent(boolean timing) {
    return new Event() {
      @Override
      public void record(Stream stream) {
      }

      @Override
      public void synchronize() {
      }

      @Override
      public float elapsedMillisSince(Event start) {
        return 0;
      }

      @Override
      public void close() {
      }
    };
  }

  @Override
  public DeviceMemory malloc(long bytes) {
    count("malloc");
    return new Mem(bytes, false);
  }

  @Override
  public DeviceMemory mallocAsync(long bytes, Stream stream) {
    count("mallocAsync");
    return new Mem(bytes, true);
  }

  @Override
  public void freeAsync(DeviceMemory memory, Stream stream) {
    count("freeAsync");
    memory.close();
  }

  @Override
  public MemPool defaultPool() {
    return new MemPool() {
      @Override
      public long releaseThreshold() {
        return poolThreshold;
      }

      @Override
      public void setReleaseThreshold(long bytes) {
        poolThreshold = bytes;
      }

      @Override
      public long reservedBytes() {
        return 0;
      }
    };
  }

  @Override
  public HostMemory allocHost(long bytes, HostMemoryKind kind) {
    hostAllocs.merge(kind, 1, Integer::sum);
    return new Host(bytes, kind);
  }

  @Override
  public void copy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    count("copy");
    if (capturing != null) {
      throw new IllegalStateException("synchronous copy during capture");
    }
    doCopy(dst, dstOffset, src, srcOffset, bytes);
  }

  private static void doCopy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    if (dstOffset + bytes > dst.bytes() || srcOffset + bytes > src.bytes()) {
      throw new IllegalArgumentException("copy out of bounds");
    }
    bytesOf(dst).put((int) dstOffset, bytesOf(src), (int) srcOffset, (int) bytes);
  }

  @Override
  public void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, Stream stream) {
    count("copyAsync");
    run(stream, () -> doCopy(dst, dstOffset, src, srcOffset, bytes));
  }

  @Override
  public void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream) {
    run(stream, () -> {
      ByteBuffer b = bytesOf(dst);
      for (long q = offset; q < offset + bytes; q++) {
        b.put((int) q, (byte) byteValue);
      }
    });
  }

  @Override
  public Module load(KernelModule module) {
    count("load");
    return new Module() {
      @Override
      public KernelModule source() {
        return module;
      }

      @Override
      public Kernel kernel(String entry) {
        KernelDef def = module.kernel(entry).orElseThrow(() -> new IllegalArgumentException("no kernel " + entry));
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
            count("carveout");
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
  public void launch(Kernel kernel, LaunchConfig config, Stream stream, Object... args) {
    count("launch");
    count("launch:" + kernel.def().entry() + ":block" + config.block().x());
    kernel.def().work().apply(config, args); // the work model must accept every launch
    Object[] a = args.clone();
    run(stream, () -> kernel.def().emulation().accept(config, new KernelArgs() {
      @Override
      public int count() {
        return a.length;
      }

      @Override
      public ByteBuffer memory(int index) {
        return bytesOf((Buffer) a[index]);
      }

      @Override
      public int i32(int index) {
        return (Integer) a[index];
      }

      @Override
      public long i64(int index) {
        return (Long) a[index];
      }

      @Override
      public float f32(int index) {
        return (Float) a[index];
      }

      @Override
      public double f64(int index) {
        return (Double) a[index];
      }
    }));
  }

  @Override
  public void beginCapture(Stream stream) {
    count("beginCapture");
    capturing = stream;
    capture.clear();
  }

  @Override
  public GraphExec endCapture(Stream stream) {
    List<Runnable> work = List.copyOf(capture);
    capturing = null;
    capture.clear();
    return new Graph(work);
  }

  private record Graph(List<Runnable> work) implements GraphExec {
    @Override
    public int nodes() {
      return work.size();
    }

    @Override
    public void close() {
    }
  }

  @Override
  public void launchGraph(GraphExec graph, Stream stream) {
    count("launchGraph");
    ((Graph) graph).work().forEach(Runnable::run);
  }

  @Override
  public void synchronize() {
  }

  @Override
  public MemInfo memInfo() {
    return new MemInfo((1L << 34) - live, 1L << 34);
  }

  @Override
  public int maxActiveBlocksPerMultiprocessor(Kernel kernel, int blockSize, int dynamicSharedBytes) {
    return 1;
  }

  @Override
  public int suggestedBlockSize(Kernel kernel, int dynamicSharedBytes) {
    return 128;
  }

  @Override
  public void setL2AccessWindow(Stream stream, DeviceMemory memory, long offset, long bytes, float hitRatio) {
    count("l2window");
  }

  @Override
  public Blas blas() {
    throw new UnsupportedFeatureException("blas", "not emulated");
  }

  @Override
  public StateSampler sampler() {
    throw new UnsupportedFeatureException("sampler", "not emulated");
  }

  @Override
  public EventTracer tracer() {
    throw new UnsupportedFeatureException("tracer", "not emulated");
  }

  @Override
  public void close() {
  }
}
