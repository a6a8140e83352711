package io.gitm.sim;

import io.gitm.api.Ticker;
import io.gitm.device.Blas;
import io.gitm.device.Buffer;
import io.gitm.device.Device;
import io.gitm.device.DeviceException;
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
import io.gitm.device.OutOfDeviceMemoryException;
import io.gitm.device.SchedulingMode;
import io.gitm.device.StateSampler;
import io.gitm.device.Stream;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.ClockReason;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.Work;
import io.gitm.trace.WorkRecord;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A simulated GPU behind the runtime facade: a discrete-event model whose operations are timed when they are queued.
 * The host has its own simulated clock, advanced by each call's modeled host cost; streams are FIFO queues; the two
 * copy engines (one per direction) and the multiprocessor array are shared resources; kernels run their Java
 * emulation (so outputs are real) and take the time of a roofline over their declared work. Same seed, same
 * records. Work is emulated in host-submission order, which is a valid order for any correctly synchronized
 * program.
 */
public final class SimDevice implements Device {
  static final int DEVICE = 0;
  private static final int DEFAULT_STREAM_ID = 7;
  private static final long MiB = 1L << 20;
  private static final long MAX_BACKED = Integer.MAX_VALUE - 8;

  private final SimSpec spec;
  private final long seed;
  private final List<InjectedFault> faults;
  private final InjectedFault[] faultArray;
  /** The other context's time slices of a {@code time-slicing} fault, on the device's clock; null without one. */
  private final TimeSlices slices;
  private final GroundTruth truth;
  private final DeviceInfo info;
  /** Draws the index of each cost's noise factor; starts where drawing the factors left the seed's generator. */
  private final Noise.SplitMix rng;
  /** The factors of {@link Noise}: device and host factor of index {@code i} side by side. Null without jitter. */
  private final double[] noise;
  private final SimTracer tracer;
  private final Activity activity = new Activity();
  private final Governor governor;
  private final SmProfile profile = new SmProfile();
  private final long[] engineFree = new long[2];
  private final List<SimStream> streams = new ArrayList<>();
  private final SimStream defaultStream;
  private final SimPool pool = new SimPool();
  private final SimBlas blas = new SimBlas(this);
  private final Map<Integer, SimStream> streamsById = new LinkedHashMap<>();
  /** Peak rate by precision ordinal, at the boost clock. */
  private final double[] peakFlops;

  private long host;
  private long deviceTail;
  private long correlation;
  private long launches;
  private long ops;
  private long plainBytes;
  private int nextStreamId = 13;
  private boolean closed;
  private final SchedulingMode scheduling;
  /** Host time spent asleep in blocking-sync waits (the host core was free). */
  private long hostSlept;

  /**
   * Extra host time after a wait that blocked, before the host thread runs again, under {@link SchedulingMode#YIELD}
   * (the thread yields its core while polling; model assumption).
   */
  static final long YIELD_WAKE_NS = 2_000;
  /**
   * The same under {@link SchedulingMode#BLOCKING_SYNC}: the thread sleeps on an OS primitive and an interrupt wakes
   * it (model assumption). {@code SPIN}, and {@code AUTO} (CUDA spins while the process's contexts do not outnumber
   * its CPUs, as with the simulator's one context), resume at once.
   */
  static final long BLOCKING_WAKE_NS = 15_000;

  SimDevice(SimSpec spec, long seed, String faultSpec, double jitter) {
    this(spec, seed, faultSpec, jitter, SchedulingMode.AUTO, Double.NaN, Double.NaN);
  }

  /**
   * A device opened with a context scheduling mode and device settings: a board power limit in watts and an SM
   * clock lock in MHz (NaN = as found; see {@link Governor}).
   */
  SimDevice(SimSpec spec, long seed, String faultSpec, double jitter, SchedulingMode scheduling, double powerLimitW,
      double smClockMHz) {
    this.spec = spec;
    this.scheduling = scheduling == null ? SchedulingMode.AUTO : scheduling;
    this.seed = seed;
    this.faults = FaultParser.parse(faultSpec, spec.hardware().multiprocessors(), spec.boostClockMHz(),
        spec.powerLimitW());
    this.faultArray = faults.toArray(new InjectedFault[0]);
    this.slices = faults.stream().filter(f -> f.name().equals("time-slicing")).findFirst().map(TimeSlices::of)
        .orElse(null);
    this.truth = new GroundTruth(spec.preset(), seed, faultSpec == null ? "" : faultSpec.strip(), faults);
    Noise n = Noise.of(seed, jitter);
    if (n != null) {
      noise = n.factors;
      rng = new Noise.SplitMix(n.state);
      drawAhead();
    } else {
      noise = null;
      rng = null;
    }
    this.governor = new Governor(spec, faults, powerLimitW, smClockMHz);
    this.peakFlops = new double[io.gitm.trace.Precision.values().length];
    for (io.gitm.trace.Precision p : io.gitm.trace.Precision.values()) {
      peakFlops[p.ordinal()] = spec.hardware().flopsFor(p);
    }
    String name = "Simulated " + spec.hardware().deviceName() + " (preset " + spec.preset() + ")";
    this.info = new DeviceInfo("sim", DeviceKind.SIMULATED, DEVICE, name, spec.hardware().uuid(),
        spec.computeCapability(), spec.hardware().multiprocessors(), spec.hardware().memoryBytes(),
        (int) Math.min(Integer.MAX_VALUE, spec.hardware().l2Bytes()), "sim preset " + spec.preset(), 0, -3);
    this.tracer = new SimTracer(new TraceMeta("sim", ClockDomain.SIMULATED,
        List.of(new TraceDevice(DEVICE, name, spec.hardware().uuid(), DeviceKind.SIMULATED)),
        Map.of("preset", spec.preset(), "seed", Long.toString(seed), "spec.source", spec.hardware().source())), this);
    this.defaultStream = newStream(DEFAULT_STREAM_ID, 0);
  }

  /** Opens a simulated device directly (the provider does this for {@code --device sim}). */
  public static SimDevice open(SimSpec spec, long seed, String faults) {
    return new SimDevice(spec, seed, faults, 0.02);
  }

  @Override
  public Optional<Record> groundTruth() {
    return Optional.of(truth);
  }

  /** The faults injected into this device, the preset and the seed: for scoring, never for the analysis. */
  public GroundTruth injected() {
    return truth;
  }

  /** The model this device runs. */
  public SimSpec spec() {
    return spec;
  }

  /** The context scheduling mode the device was opened with. */
  public SchedulingMode scheduling() {
    return scheduling;
  }

  /** The priority of the stream whose trace id is {@code streamId} (also after it was destroyed). */
  public synchronized int streamPriority(int streamId) {
    SimStream s = streamsById.get(streamId);
    if (s == null) {
      throw new IllegalArgumentException("the simulated device has no stream " + streamId);
    }
    return s.priority;
  }

  /**
   * Simulated host time the host thread spent asleep in synchronizations (only under
   * {@link SchedulingMode#BLOCKING_SYNC}; a spinning or yielding thread keeps its core busy while it waits).
   */
  public synchronized long hostSleptNanos() {
    return hostSlept;
  }

  // ------------------------------------------------------------------ clock, noise, records

  synchronized long now() {
    return host;
  }

  private long hostCost(double ns) {
    if (noise == null) {
      return Math.max(0, Math.round(ns));
    }
    double f = aheadHost;
    drawAhead();
    return Math.max(0, Math.round(ns * f));
  }

  private long deviceCost(double ns) {
    if (noise == null) {
      return Math.max(1, Math.round(ns));
    }
    double f = aheadDevice;
    drawAhead();
    return Math.max(1, Math.round(ns * f));
  }

  /**
   * The host and device factors of the next noise draw, drawn one call ahead so that the table reads leave the
   * critical path; each cost takes the draw's factor of its own table, so the factors are those of drawing at the
   * call itself ({@code rng} serves nothing else once the tables are made).
   */
  private double aheadHost;
  private double aheadDevice;

  /** Draws the next noise index: {@code rng.nextInt(Noise.TABLE)}, which for a power of two is this mask. */
  private void drawAhead() {
    int i = rng.nextInt() & (Noise.TABLE - 1);
    aheadDevice = noise[2 * i];
    aheadHost = noise[2 * i + 1];
  }

  private long api(ApiKind kind, String name, long corr, long start) {
    if (tracer.on()) {
      tracer.emit(new ApiCallRecord(kind, name, Thread.currentThread().threadId(), corr, start, host));
    }
    return corr;
  }

  /** Host time of a query or attribute call (model assumption). */
  private static final double QUERY_NS = 500;

  /** A cheap driver call the facade makes: costs {@link #QUERY_NS} and leaves an OTHER API record. */
  synchronized void query(String name) {
    if (closed) {
      return;
    }
    long t0 = host;
    host += hostCost(QUERY_NS);
    api(ApiKind.OTHER, name, ++correlation, t0);
  }

  private void check() {
    if (closed) {
      throw new DeviceException("sim", 201, "CUDA_ERROR_INVALID_CONTEXT", "the simulated device is closed");
    }
  }

  private boolean faultActive(String name) {
    return fault(name) != null;
  }

  private InjectedFault fault(String name) {
    if (faultArray.length == 0) {
      return null;
    }
    for (InjectedFault f : faultArray) {
      if (f.activeAt(host) && f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ scheduling core

  private SimStream newStream(int id, int priority) {
    SimStream s = new SimStream(this, id, priority, spec.launchQueueDepth());
    streams.add(s);
    streamsById.put(id, s);
    return s;
  }

  /** Blocks the host while {@code s} already holds a full launch queue. */
  private void admit(SimStream s) {
    host = s.admit(host);
  }

  private long readyOn(SimStream s) {
    long r = Math.max(host, s.tail);
    if (faultActive("serialized-streams")) {
      r = Math.max(r, deviceTail);
    }
    return r;
  }

  private void finish(SimStream s, long end) {
    s.tail = Math.max(s.tail, end);
    s.queued(end);
    deviceTail = Math.max(deviceTail, end);
    if ((++ops & 255) == 0) {
      profile.prune(host);
    }
  }

  /** The earliest time at or after {@code t} at which the job's work may run on the multiprocessors. */
  private long sliced(long t) {
    return slices == null ? t : slices.runnableFrom(t);
  }

  /** The end of {@code d} of the job's device time from {@code start}, paused through another context's slices. */
  private long slicedEnd(long start, long d) {
    return slices == null ? start + d : slices.endOf(start, d);
  }

  private int smsAvailable() {
    int sms = spec.hardware().multiprocessors();
    InjectedFault n = fault("noisy-neighbour");
    return n == null ? sms : Math.max(1, sms - (int) n.param("sms"));
  }

  private double bandwidthFactor() {
    InjectedFault e = fault("ecc-retirement");
    return e == null ? 1.0 : e.param("factor");
  }

  /** Queues a kernel on {@code s}: {@code fixedNs >= 0} takes that device time instead of the roofline. */
  void enqueueKernel(String name, LaunchConfig config, Work work, SimStream s, long corr, long fixedNs,
      int carveout) {
    enqueueKernel(name, config, work, s, corr, fixedNs, carveout, null);
  }

  /** As above; {@code memo} (may be null) remembers the kernel's last timing for repeated identical launches. */
  void enqueueKernel(String name, LaunchConfig config, Work work, SimStream s, long corr, long fixedNs,
      int carveout, TimingMemo memo) {
    governor.advance(host, activity);
    Work w = work;
    for (InjectedFault f : faultArray) {
      if (f.name().equals("uncoalesced") && f.activeAt(host) && name.contains(f.kernel())) {
        double k = f.param("factor");
        w = w.withBytes(Math.round(w.bytesRead() * k), Math.round(w.bytesWritten() * k));
      }
    }
    if (s.l2Window != null && s.l2Window.bytes() > 0) {
      long hit = Math.round(s.l2Window.hitRatio()
          * Math.min(w.bytesRead(), Math.min(s.l2Window.bytes(), spec.hardware().l2Bytes() * 3 / 4)));
      w = w.withBytes(w.bytesRead() - hit, w.bytesWritten());
    }
    int cap = smsAvailable();
    Work timed = fixedNs >= 0 ? Work.NONE : w;
    double clock = governor.clockMHz();
    double bw = bandwidthFactor();
    KernelTiming.Result r = memo == null ? null : memo.get(timed, config, cap, clock, bw, carveout);
    if (r == null) {
      r = KernelTiming.time(spec, peakFlops[timed.precision().ordinal()], timed, config, cap, clock, bw, carveout);
      if (memo != null) {
        memo.put(timed, config, cap, clock, bw, carveout, r);
      }
    }
    long d = deviceCost(fixedNs >= 0 ? Math.max(1, fixedNs) : r.durationNs());
    long ready = readyOn(s);
    long start;
    long end;
    if (slices == null) {
      start = profile.earliest(ready, d, r.smsUsed(), cap);
      end = start + d;
    } else {
      // the earliest start in one of the job's slices where the SMs are free until the kernel, paused through the
      // other context's slices, ends
      start = slices.runnableFrom(ready);
      while (true) {
        end = slices.endOf(start, d);
        long next = slices.runnableFrom(profile.earliest(start, end - start, r.smsUsed(), cap));
        if (next == start) {
          break;
        }
        start = next;
      }
    }
    profile.reserve(start, end, Math.min(r.smsUsed(), cap));
    activity.addKernel(start, end, (double) r.smsUsed() / spec.hardware().multiprocessors(), r.memoryBoundShare());
    finish(s, end);
    if (tracer.on()) {
      if (fixedNs < 0 && work != null) {
        tracer.emit(WorkRecord.of(name, DEVICE, s.id, corr, host, work));
        tracer.emit(new TrafficRecord(DEVICE, corr, end, w.bytesRead(), w.bytesWritten(), "sim"));
      }
      tracer.emit(new KernelRecord(name, DEVICE, s.id, corr, start, end, config.grid(), config.block(),
          KernelTiming.ASSUMED_REGISTERS, 0, config.dynamicSharedBytes()));
    }
  }

  /** The last timing of one kernel and its inputs: a loop's repeated launches skip the roofline. */
  static final class TimingMemo {
    private double flops;
    private long read;
    private long written;
    private long chain;
    private long onChip;
    private io.gitm.trace.Precision precision;
    private LaunchConfig config;
    private int sms;
    private double clock;
    private double bandwidth;
    private int carveout;
    private KernelTiming.Result result;

    KernelTiming.Result get(Work w, LaunchConfig c, int sms, double clock, double bw, int carveout) {
      if (result != null && w.flops() == flops && w.bytesRead() == read && w.bytesWritten() == written
          && w.dependentAccesses() == chain && w.dependentOnChipAccesses() == onChip && w.precision() == precision
          && sms == this.sms && clock == this.clock && bw == bandwidth
          && carveout == this.carveout && (c == config || c.equals(config))) {
        return result;
      }
      return null;
    }

    void put(Work w, LaunchConfig c, int sms, double clock, double bw, int carveout, KernelTiming.Result r) {
      flops = w.flops();
      read = w.bytesRead();
      written = w.bytesWritten();
      chain = w.dependentAccesses();
      onChip = w.dependentOnChipAccesses();
      precision = w.precision();
      config = c;
      this.sms = sms;
      this.clock = clock;
      bandwidth = bw;
      this.carveout = carveout;
      result = r;
    }
  }

  private double hostLinkFactor() {
    InjectedFault p = fault("pcie-downgrade");
    return p == null ? 1.0 : p.param("factor");
  }

  /** Queues a copy on {@code s}; returns its end. The host waits for it when {@code hostWaits}. */
  long enqueueCopy(CopyKind kind, long bytes, MemoryKind src, MemoryKind dst, SimStream s, long corr,
      boolean hostWaits) {
    var h = spec.hardware();
    double rate;
    int engine;
    switch (kind) {
      case HTOD -> {
        rate = (src == MemoryKind.PINNED ? h.hostToDevicePinned() : h.hostToDevicePageable()) * hostLinkFactor();
        engine = 0;
      }
      case DTOH -> {
        rate = (dst == MemoryKind.PINNED ? h.deviceToHostPinned() : h.deviceToHostPageable()) * hostLinkFactor();
        engine = 1;
      }
      case DTOD -> {
        rate = h.memoryBandwidth() * bandwidthFactor() / 2;
        engine = -1;
      }
      default -> {
        rate = h.hostToDevicePageable();
        engine = -1;
      }
    }
    long d = deviceCost(spec.copyLatencyNs() + bytes / rate * 1e9);
    long start = readyOn(s);
    long end;
    if (engine >= 0) {
      // the copy engines are not time-sliced (model assumption): host copies run through another context's slices
      start = Math.max(start, engineFree[engine]);
      end = start + d;
    } else if (kind == CopyKind.DTOD) {
      // a device-to-device copy runs on the multiprocessors: only in the job's slices
      start = sliced(start);
      end = slicedEnd(start, d);
    } else {
      end = start + d;
    }
    if (engine >= 0) {
      engineFree[engine] = end;
      activity.addTransfer(start, end, bytes, kind == CopyKind.HTOD);
    }
    finish(s, end);
    if (hostWaits) {
      host = Math.max(host, end);
    }
    if (tracer.on()) {
      tracer.emit(new CopyRecord(kind, bytes, src, dst, DEVICE, s.id, corr, start, end));
    }
    return end;
  }

  void enqueueMemset(long bytes, int value, SimStream s, long corr) {
    long d = deviceCost(spec.copyLatencyNs() + bytes / (spec.hardware().memoryBandwidth() * bandwidthFactor()) * 1e9);
    long start = sliced(readyOn(s));
    long end = slicedEnd(start, d);
    finish(s, end);
    if (tracer.on()) {
      tracer.emit(new MemsetRecord(bytes, value, MemoryKind.DEVICE, DEVICE, s.id, corr, start, end));
    }
  }

  /** Advances the host to when the whole device is idle; trims the pool as a synchronization does. */
  private void waitDevice() {
    host = Math.max(host, deviceTail);
    pool.trim();
  }

  private void requireNotCapturing(String function) {
    for (SimStream s : streams) {
      if (s.capture != null) {
        throw new DeviceException(function, 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
            "not permitted while stream " + s.id + " is capturing");
      }
    }
  }

  // ------------------------------------------------------------------ Device

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public Ticker clock() {
    return ticker;
  }

  private final Ticker ticker = this::now;

  @Override
  public Stream defaultStream() {
    return defaultStream;
  }

  @Override
  public synchronized Stream createStream(int priority) {
    check();
    if (priority > info.leastStreamPriority() || priority < info.greatestStreamPriority()) {
      throw new DeviceException("cuStreamCreateWithPriority", 1, "CUDA_ERROR_INVALID_VALUE",
          "priority " + priority + " outside " + info.greatestStreamPriority() + ".." + info.leastStreamPriority());
    }
    long t0 = host;
    host += hostCost(spec.copyApiNs());
    SimStream s = newStream(nextStreamId++, priority);
    api(ApiKind.OTHER, "cuStreamCreateWithPriority", ++correlation, t0);
    return s;
  }

  /** The stream with trace id {@code id}, created when new (trace-driven replay). */
  synchronized SimStream streamForId(int id) {
    SimStream s = streamsById.get(id);
    if (s == null) {
      s = newStream(id, 0);
      nextStreamId = Math.max(nextStreamId, id + 1);
    }
    return s;
  }

  @Override
  public synchronized Event createEvent(boolean timing) {
    check();
    long t0 = host;
    host += hostCost(spec.copyApiNs());
    api(ApiKind.OTHER, "cuEventCreate", ++correlation, t0);
    return new SimEvent(this, timing);
  }

  private SimMemory memory(Buffer b, String function) {
    if (b instanceof SimMemory m && m.device == this) {
      if (m.freed) {
        throw new DeviceException(function, 1, "CUDA_ERROR_INVALID_VALUE", "device memory used after free");
      }
      return m;
    }
    throw new DeviceException(function, 400, "CUDA_ERROR_INVALID_HANDLE", "not memory of this simulated device");
  }

  private SimHostMemory hostMemory(Buffer b, String function) {
    if (b instanceof SimHostMemory m) {
      if (m.freed) {
        throw new DeviceException(function, 1, "CUDA_ERROR_INVALID_VALUE", "host memory used after free");
      }
      return m;
    }
    throw new DeviceException(function, 400, "CUDA_ERROR_INVALID_HANDLE", "not host memory of the simulated device");
  }

  private SimStream stream(Stream s, String function) {
    if (s instanceof SimStream x && x.device == this && !x.destroyed) {
      return x;
    }
    throw new DeviceException(function, 400, "CUDA_ERROR_INVALID_HANDLE", "not a live stream of this simulated device");
  }

  private void reserve(long bytes, String function) {
    reserve(bytes, function, false);
  }

  /** Checks that {@code bytes} more fit in device memory; pooled requests may use the pool's free reservation. */
  private void reserve(long bytes, String function, boolean pooled) {
    if (bytes <= 0) {
      throw new DeviceException(function, 1, "CUDA_ERROR_INVALID_VALUE", "allocation of " + bytes + " bytes");
    }
    if (bytes > MAX_BACKED) {
      throw new OutOfDeviceMemoryException(function, 2, "CUDA_ERROR_OUT_OF_MEMORY", "the simulated device backs "
          + "each allocation with a host buffer of at most 2 GiB; asked for " + bytes + " bytes");
    }
    long needed = pooled ? plainBytes + Math.max(pool.reserved, pool.used + bytes) : plainBytes + pool.reserved + bytes;
    if (needed > spec.hardware().memoryBytes()) {
      throw new OutOfDeviceMemoryException(function, 2, "CUDA_ERROR_OUT_OF_MEMORY", bytes + " bytes asked, "
          + (spec.hardware().memoryBytes() - plainBytes - pool.reserved) + " free");
    }
  }

  private double mallocCost(long bytes) {
    InjectedFault churn = fault("allocator-churn");
    double f = churn == null ? 1 : churn.param("factor");
    return (spec.mallocNs() + spec.mallocNsPerMiB() * ((double) bytes / MiB)) * f;
  }

  /** {@code cuMemAlloc}: synchronizes the device, then maps memory. */
  private void plainAlloc(long bytes) {
    waitDevice();
    host += hostCost(mallocCost(bytes));
  }

  @Override
  public synchronized DeviceMemory malloc(long bytes) {
    check();
    long t0 = host;
    long corr = ++correlation;
    reserve(bytes, "cuMemAlloc_v2");
    plainAlloc(bytes);
    plainBytes += bytes;
    api(ApiKind.ALLOC, "cuMemAlloc_v2", corr, t0);
    return new SimMemory(this, bytes, false);
  }

  @Override
  public synchronized DeviceMemory mallocAsync(long bytes, Stream stream) {
    check();
    stream(stream, "cuMemAllocAsync");
    long t0 = host;
    long corr = ++correlation;
    reserve(bytes, "cuMemAllocAsync", true);
    if (faultActive("allocator-churn")) {
      plainAlloc(bytes);
      pool.used += bytes;
      pool.reserved = Math.max(pool.reserved, pool.used);
    } else {
      host += hostCost(pool.alloc(bytes));
    }
    api(ApiKind.ALLOC, "cuMemAllocAsync", corr, t0);
    return new SimMemory(this, bytes, true);
  }

  @Override
  public synchronized void freeAsync(DeviceMemory memory, Stream stream) {
    check();
    SimMemory m = memory(memory, "cuMemFreeAsync");
    stream(stream, "cuMemFreeAsync");
    free(m, "cuMemFreeAsync");
  }

  synchronized void free(SimMemory m, String function) {
    if (m.freed || closed) {
      return;
    }
    long t0 = host;
    long corr = ++correlation;
    m.freed = true;
    if (m.pooled) {
      recycle(m);
      pool.used -= m.bytes;
      if (faultActive("allocator-churn")) {
        waitDevice();
        host += hostCost(spec.freeNs() * fault("allocator-churn").param("factor"));
        pool.reserved = pool.used;
      } else {
        host += hostCost(spec.copyApiNs());
      }
    } else {
      waitDevice();
      host += hostCost(spec.freeNs());
      plainBytes -= m.bytes;
      recycle(m);
    }
    api(ApiKind.FREE, m.pooled ? function : "cuMemFree_v2", corr, t0);
  }

  @Override
  public MemPool defaultPool() {
    return pool;
  }

  @Override
  public synchronized HostMemory allocHost(long bytes, HostMemoryKind kind) {
    check();
    if (bytes <= 0 || bytes > MAX_BACKED) {
      throw new DeviceException("cuMemHostAlloc", 1, "CUDA_ERROR_INVALID_VALUE",
          "host allocation of " + bytes + " bytes (the simulated device backs at most 2 GiB per buffer)");
    }
    if (kind == null) {
      throw new IllegalArgumentException("host memory kind is required");
    }
    if (kind == HostMemoryKind.PINNED) {
      long t0 = host;
      host += hostCost(spec.mallocNs() + spec.mallocNsPerMiB() * ((double) bytes / MiB));
      api(ApiKind.ALLOC, "cuMemHostAlloc", ++correlation, t0);
    }
    return new SimHostMemory(this, bytes, kind);
  }

  synchronized void freeHost(SimHostMemory m) {
    if (m.freed || closed) {
      m.freed = true;
      return;
    }
    m.freed = true;
    if (m.kind == HostMemoryKind.PINNED) {
      long t0 = host;
      waitDevice();
      host += hostCost(spec.freeNs());
      api(ApiKind.FREE, "cuMemFreeHost", ++correlation, t0);
    }
  }

  /** The memory kind a copy's host side really has: pinned memory is pageable under the pageable-copies fault. */
  private MemoryKind hostKind(SimHostMemory m) {
    if (m.kind == HostMemoryKind.PAGEABLE || faultActive("pageable-copies")) {
      return MemoryKind.PAGEABLE;
    }
    return MemoryKind.PINNED;
  }

  private record Route(CopyKind kind, MemoryKind src, MemoryKind dst) {
  }

  private Route route(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, String function) {
    if (bytes < 0 || dstOffset < 0 || srcOffset < 0 || dstOffset + bytes > dst.bytes()
        || srcOffset + bytes > src.bytes()) {
      throw new DeviceException(function, 1, "CUDA_ERROR_INVALID_VALUE", "copy of " + bytes + " bytes at "
          + srcOffset + " -> " + dstOffset + " overruns a " + src.bytes() + " / " + dst.bytes() + " byte buffer");
    }
    MemoryKind s = src instanceof DeviceMemory ? MemoryKind.DEVICE : hostKind(hostMemory(src, function));
    MemoryKind d = dst instanceof DeviceMemory ? MemoryKind.DEVICE : hostKind(hostMemory(dst, function));
    if (src instanceof DeviceMemory) {
      memory(src, function);
    }
    if (dst instanceof DeviceMemory) {
      memory(dst, function);
    }
    CopyKind k = s == MemoryKind.DEVICE ? (d == MemoryKind.DEVICE ? CopyKind.DTOD : CopyKind.DTOH)
        : (d == MemoryKind.DEVICE ? CopyKind.HTOD : CopyKind.HTOH);
    return new Route(k, s, d);
  }

  private static ByteBuffer data(Buffer b) {
    return b instanceof SimMemory m ? m.data() : ((SimHostMemory) b).data;
  }

  private static void moveBytes(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    if (bytes == 0) {
      return;
    }
    // every backing buffer is a heap buffer (ByteBuffer.allocate); arraycopy copies overlapping ranges as memmove
    ByteBuffer s = data(src);
    ByteBuffer d = data(dst);
    System.arraycopy(s.array(), s.arrayOffset() + (int) srcOffset, d.array(), d.arrayOffset() + (int) dstOffset,
        (int) bytes);
  }

  @Override
  public synchronized void copy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes) {
    check();
    requireNotCapturing("cuMemcpy");
    Route r = route(dst, dstOffset, src, srcOffset, bytes, "cuMemcpy");
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    moveBytes(dst, dstOffset, src, srcOffset, bytes);
    admit(defaultStream);
    enqueueCopy(r.kind(), bytes, r.src(), r.dst(), defaultStream, corr, true);
    api(ApiKind.COPY, "cuMemcpy", corr, t0);
  }

  @Override
  public synchronized void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes,
      Stream stream) {
    check();
    SimStream s = stream(stream, "cuMemcpyAsync");
    Route r = route(dst, dstOffset, src, srcOffset, bytes, "cuMemcpyAsync");
    boolean pageable = r.src() == MemoryKind.PAGEABLE || r.dst() == MemoryKind.PAGEABLE;
    if (s.capture != null) {
      if (pageable) {
        throw new DeviceException("cuMemcpyAsync", 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
            "a copy from or to pageable host memory cannot be captured into a graph");
      }
      long t0 = host;
      host += hostCost(spec.copyApiNs());
      api(ApiKind.COPY, "cuMemcpyAsync", ++correlation, t0);
      s.capture.add((target, corr) -> {
        moveBytes(dst, dstOffset, src, srcOffset, bytes);
        enqueueCopy(r.kind(), bytes, r.src(), r.dst(), target, corr, false);
      });
      return;
    }
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    moveBytes(dst, dstOffset, src, srcOffset, bytes);
    admit(s);
    enqueueCopy(r.kind(), bytes, r.src(), r.dst(), s, corr, pageable || r.kind() == CopyKind.HTOH);
    api(ApiKind.COPY, "cuMemcpyAsync", corr, t0);
  }

  @Override
  public synchronized void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream) {
    check();
    SimStream s = stream(stream, "cuMemsetD8Async");
    SimMemory m = memory(dst, "cuMemsetD8Async");
    if (offset < 0 || bytes < 0 || offset + bytes > m.bytes) {
      throw new DeviceException("cuMemsetD8Async", 1, "CUDA_ERROR_INVALID_VALUE",
          "memset of " + bytes + " bytes at " + offset + " overruns a " + m.bytes + " byte buffer");
    }
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    Runnable effect = () -> {
      java.util.Arrays.fill(m.data().array(), (int) offset, (int) (offset + bytes), (byte) byteValue);
    };
    if (s.capture != null) {
      s.capture.add((target, c) -> {
        effect.run();
        enqueueMemset(bytes, byteValue, target, c);
      });
    } else {
      effect.run();
      admit(s);
      enqueueMemset(bytes, byteValue, s, corr);
    }
    api(ApiKind.MEMSET, "cuMemsetD8Async", corr, t0);
  }

  @Override
  public synchronized Module load(KernelModule module) {
    check();
    if (module == null) {
      throw new IllegalArgumentException("no kernel module to load");
    }
    long t0 = host;
    host += hostCost(MODULE_LOAD_NS);
    api(ApiKind.OTHER, "cuModuleLoadData", ++correlation, t0);
    return new SimModule(this, module);
  }

  /** Host time of loading a module (model assumption). */
  private static final double MODULE_LOAD_NS = 100_000;

  @Override
  public synchronized void launch(Kernel kernel, LaunchConfig config, Stream stream, Object... args) {
    check();
    SimStream s = stream(stream, "cuLaunchKernel");
    if (!(kernel instanceof SimKernel k) || k.module.device != this) {
      throw new DeviceException("cuLaunchKernel", 400, "CUDA_ERROR_INVALID_HANDLE", "not a kernel of this device");
    }
    if (config == null) {
      throw new IllegalArgumentException("launch of " + k.def.entry() + " without a launch config");
    }
    Object[] a = args == null ? new Object[0] : s.capture != null ? args.clone() : args;
    validateLaunch(k, config, a);
    Work w = work(k.def, config, a);
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.hardware().launchLatencyNs());
    if (s.capture != null) {
      // A graph node's work is taken again at each replay: data-dependent work (a chain sized from what earlier
      // nodes wrote) sees that replay's data, as the emulation does.
      s.capture.add((target, c) -> {
        Work now = work(k.def, config, a);
        emulate(k.def, config, a);
        enqueueKernel(k.def.entry(), config, now, target, c, -1, k.carveout);
      });
      api(ApiKind.LAUNCH, "cuLaunchKernel", corr, t0);
      return;
    }
    emulate(k.def, config, a);
    admit(s);
    enqueueKernel(k.def.entry(), config, w, s, corr, -1, k.carveout, k.memo);
    api(ApiKind.LAUNCH, "cuLaunchKernel", corr, t0);
    afterLaunch();
  }

  /** Host-side faults that follow a launch: launch-bound gaps and synchronous stalls. */
  private void afterLaunch() {
    launches++;
    InjectedFault gap = fault("launch-bound");
    if (gap != null) {
      host += hostCost(gap.param("gapUs") * 1000);
    }
    InjectedFault stall = fault("sync-stall");
    if (stall != null && launches % (long) stall.param("every") == 0) {
      long t0 = host;
      long corr = ++correlation;
      host += hostCost(spec.copyApiNs());
      waitDevice();
      if (tracer.on()) {
        tracer.emit(new SyncRecord(SyncKind.CONTEXT, DEVICE, -1, corr, t0, host));
      }
      api(ApiKind.SYNC, "cuCtxSynchronize", corr, t0);
    }
  }

  private void validateLaunch(SimKernel k, LaunchConfig c, Object[] a) {
    String e = k.def.entry();
    if (c.block().volume() > 1024) {
      throw new DeviceException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE",
          e + ": block " + c.block() + " has more than 1024 threads");
    }
    if (c == k.fitted || k.fits(c)) {
      validateArgs(e, a);
      return;
    }
    if (c.dynamicSharedBytes() > k.maxDynamicShared) {
      throw new DeviceException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE", e + ": " + c.dynamicSharedBytes()
          + " bytes of dynamic shared memory over the kernel's limit of " + k.maxDynamicShared);
    }
    if (KernelTiming.residentBlocks(spec, (int) c.block().volume(), KernelTiming.ASSUMED_REGISTERS,
        c.dynamicSharedBytes(), k.carveout) == 0) {
      throw new DeviceException("cuLaunchKernel", 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
          e + ": one block of " + c.block() + " does not fit on a multiprocessor");
    }
    k.fitted = c;
    validateArgs(e, a);
  }

  private void validateArgs(String e, Object[] a) {
    for (int i = 0; i < a.length; i++) {
      Object x = a[i];
      if (x instanceof Buffer b) {
        memory(b, "cuLaunchKernel");
      } else if (!(x instanceof Integer || x instanceof Long || x instanceof Float || x instanceof Double)) {
        throw new DeviceException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE", e + ": argument " + i
            + " is " + (x == null ? "null" : x.getClass().getSimpleName())
            + "; use DeviceMemory, Integer, Long, Float or Double");
      }
    }
  }

  private static Work work(KernelDef def, LaunchConfig c, Object[] a) {
    try {
      Work w = def.work().apply(c, a);
      return w == null ? Work.NONE : w;
    } catch (RuntimeException ex) {
      throw new DeviceException("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE",
          def.entry() + ": work model failed: " + ex.getMessage());
    }
  }

  private static void emulate(KernelDef def, LaunchConfig c, Object[] a) {
    try {
      def.emulation().accept(c, new Args(a));
    } catch (DeviceException ex) {
      throw ex;
    } catch (RuntimeException ex) {
      throw new DeviceException("cuLaunchKernel", 719, "CUDA_ERROR_LAUNCH_FAILED",
          def.entry() + ": emulation failed: " + ex);
    }
  }

  /** A launch's arguments as an emulation sees them. */
  private record Args(Object[] a) implements KernelArgs {
    @Override
    public int count() {
      return a.length;
    }

    private Object at(int i) {
      if (i < 0 || i >= a.length) {
        throw new IndexOutOfBoundsException("argument " + i + " of " + a.length);
      }
      return a[i];
    }

    @Override
    public ByteBuffer memory(int index) {
      if (at(index) instanceof SimMemory m) {
        return m.data().duplicate().order(ByteOrder.LITTLE_ENDIAN).clear();
      }
      throw new IllegalArgumentException("argument " + index + " is not device memory");
    }

    private Number num(int i) {
      if (at(i) instanceof Number n) {
        return n;
      }
      throw new IllegalArgumentException("argument " + i + " is not a scalar");
    }

    @Override
    public int i32(int index) {
      return num(index).intValue();
    }

    @Override
    public long i64(int index) {
      return num(index).longValue();
    }

    @Override
    public float f32(int index) {
      return num(index).floatValue();
    }

    @Override
    public double f64(int index) {
      return num(index).doubleValue();
    }
  }

  /** A GEMM from {@link SimBlas}: emulated by {@code effect}, timed from its work. */
  synchronized void launchGemm(String name, LaunchConfig config, Work w, Stream stream, Runnable effect) {
    check();
    SimStream s = stream(stream, "cublasSgemm_v2");
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.hardware().launchLatencyNs());
    if (s.capture != null) {
      s.capture.add((target, c) -> {
        effect.run();
        enqueueKernel(name, config, w, target, c, -1, -1);
      });
      api(ApiKind.LAUNCH, "cuLaunchKernel", corr, t0);
      return;
    }
    effect.run();
    admit(s);
    enqueueKernel(name, config, w, s, corr, -1, -1);
    api(ApiKind.LAUNCH, "cuLaunchKernel", corr, t0);
    afterLaunch();
  }

  @Override
  public synchronized void beginCapture(Stream stream) {
    check();
    SimStream s = stream(stream, "cuStreamBeginCapture");
    if (s.capture != null) {
      throw new DeviceException("cuStreamBeginCapture", 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
          "stream " + s.id + " is already capturing");
    }
    long t0 = host;
    host += hostCost(spec.copyApiNs());
    s.capture = new ArrayList<>();
    api(ApiKind.OTHER, "cuStreamBeginCapture", ++correlation, t0);
  }

  @Override
  public synchronized GraphExec endCapture(Stream stream) {
    check();
    SimStream s = stream(stream, "cuStreamEndCapture");
    if (s.capture == null) {
      throw new DeviceException("cuStreamEndCapture", 901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
          "stream " + s.id + " is not capturing");
    }
    List<SimStream.Node> nodes = List.copyOf(s.capture);
    s.capture = null;
    long t0 = host;
    // instantiation cost grows with the graph (model assumption: one launch's host time per node)
    host += hostCost(spec.copyApiNs() + nodes.size() * spec.hardware().launchLatencyNs());
    api(ApiKind.OTHER, "cuGraphInstantiate", ++correlation, t0);
    return new SimGraph(this, nodes);
  }

  @Override
  public synchronized void launchGraph(GraphExec graph, Stream stream) {
    check();
    SimStream s = stream(stream, "cuGraphLaunch");
    if (!(graph instanceof SimGraph g) || g.device != this || g.closed) {
      throw new DeviceException("cuGraphLaunch", 400, "CUDA_ERROR_INVALID_HANDLE", "not a live graph of this device");
    }
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.graphLaunchNs());
    admit(s);
    for (SimStream.Node n : g.nodes) {
      n.replay(s, corr);
    }
    api(ApiKind.LAUNCH, "cuGraphLaunch", corr, t0);
    afterLaunch();
  }

  @Override
  public synchronized void synchronize() {
    check();
    requireNotCapturing("cuCtxSynchronize");
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    waitDevice();
    if (tracer.on()) {
      tracer.emit(new SyncRecord(SyncKind.CONTEXT, DEVICE, -1, corr, t0, host));
    }
    api(ApiKind.SYNC, "cuCtxSynchronize", corr, t0);
  }

  synchronized void synchronize(SimStream s) {
    check();
    if (s.capture != null) {
      throw new DeviceException("cuStreamSynchronize", 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
          "stream " + s.id + " is capturing");
    }
    hostWaits(SyncKind.STREAM, s.id, s.tail, "cuStreamSynchronize");
  }

  synchronized void waitEvent(SimStream s, SimEvent e) {
    check();
    if (e.device != this) {
      throw new DeviceException("cuStreamWaitEvent", 400, "CUDA_ERROR_INVALID_HANDLE", "event of another device");
    }
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    if (s.capture != null) {
      s.capture.add((target, c) -> target.tail = Math.max(target.tail, e.time));
    } else if (e.time >= 0) {
      s.tail = Math.max(s.tail, e.time);
    }
    if (tracer.on()) {
      tracer.emit(new SyncRecord(SyncKind.STREAM_WAIT_EVENT, DEVICE, s.id, corr, t0, host));
    }
    api(ApiKind.SYNC, "cuStreamWaitEvent", corr, t0);
  }

  synchronized void recordEvent(SimEvent e, Stream stream) {
    check();
    SimStream s = stream(stream, "cuEventRecord");
    long t0 = host;
    host += hostCost(spec.copyApiNs());
    if (s.capture != null) {
      s.capture.add((target, c) -> {
        e.time = Math.max(target.tail, host);
        e.stream = target.id;
      });
    } else {
      e.time = Math.max(s.tail, host);
      e.stream = s.id;
      if (e.timing && spec.timingEventNs() > 0) {
        // The stream writes the timestamp after its own processing time; later work on it waits.
        e.time += deviceCost(spec.timingEventNs());
        finish(s, e.time);
      }
    }
    api(ApiKind.OTHER, "cuEventRecord", ++correlation, t0);
  }

  synchronized void synchronize(SimEvent e) {
    check();
    if (e.time < 0) {
      throw new DeviceException("cuEventSynchronize", 400, "CUDA_ERROR_INVALID_HANDLE", "event was never recorded");
    }
    hostWaits(SyncKind.EVENT, e.stream, e.time, "cuEventSynchronize");
  }

  synchronized float elapsed(SimEvent start, SimEvent end) {
    check();
    if (!start.timing || !end.timing) {
      throw new DeviceException("cuEventElapsedTime", 400, "CUDA_ERROR_INVALID_HANDLE",
          "both events need timing enabled");
    }
    if (start.time < 0 || end.time < 0) {
      throw new DeviceException("cuEventElapsedTime", 400, "CUDA_ERROR_INVALID_HANDLE", "event was never recorded");
    }
    if (start.time > host || end.time > host) {
      throw new DeviceException("cuEventElapsedTime", 600, "CUDA_ERROR_NOT_READY", "event has not completed");
    }
    query("cuEventElapsedTime");
    return (float) ((end.time - start.time) / 1e6);
  }

  synchronized void destroy(SimStream s) {
    if (s == defaultStream || s.destroyed) {
      return;
    }
    s.destroyed = true;
    streams.remove(s);
    query("cuStreamDestroy_v2");
  }

  @Override
  public synchronized MemInfo memInfo() {
    check();
    query("cuMemGetInfo_v2");
    return memInfoUnlocked();
  }

  @Override
  public int maxActiveBlocksPerMultiprocessor(Kernel kernel, int blockSize, int dynamicSharedBytes) {
    if (blockSize <= 0 || blockSize > 1024 || dynamicSharedBytes < 0) {
      throw new DeviceException("cuOccupancyMaxActiveBlocksPerMultiprocessor", 1, "CUDA_ERROR_INVALID_VALUE",
          "block size " + blockSize + ", shared " + dynamicSharedBytes);
    }
    int carve = kernel instanceof SimKernel k ? k.carveout : -1;
    query("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return KernelTiming.residentBlocks(spec, blockSize, KernelTiming.ASSUMED_REGISTERS, dynamicSharedBytes, carve);
  }

  @Override
  public int suggestedBlockSize(Kernel kernel, int dynamicSharedBytes) {
    if (dynamicSharedBytes < 0) {
      throw new DeviceException("cuOccupancyMaxPotentialBlockSize", 1, "CUDA_ERROR_INVALID_VALUE",
          "negative shared memory " + dynamicSharedBytes);
    }
    int carve = kernel instanceof SimKernel k ? k.carveout : -1;
    query("cuOccupancyMaxPotentialBlockSize");
    int best = 32;
    int bestWarps = -1;
    for (int b = 1024; b >= 32; b -= 32) {
      int warps = KernelTiming.residentBlocks(spec, b, KernelTiming.ASSUMED_REGISTERS, dynamicSharedBytes, carve)
          * (b / 32);
      if (warps > bestWarps) {
        bestWarps = warps;
        best = b;
      }
    }
    return best;
  }

  @Override
  public synchronized void setL2AccessWindow(Stream stream, DeviceMemory memory, long offset, long bytes,
      float hitRatio) {
    check();
    SimStream s = stream(stream, "cuStreamSetAttribute");
    if (bytes == 0) {
      s.l2Window = null;
      query("cuStreamSetAttribute");
      return;
    }
    SimMemory m = memory(memory, "cuStreamSetAttribute");
    if (offset < 0 || bytes < 0 || offset + bytes > m.bytes || hitRatio < 0 || hitRatio > 1) {
      throw new DeviceException("cuStreamSetAttribute", 1, "CUDA_ERROR_INVALID_VALUE",
          "L2 window of " + bytes + " bytes at " + offset + " with hit ratio " + hitRatio);
    }
    long t0 = host;
    host += hostCost(spec.copyApiNs());
    s.l2Window = new SimStream.L2Window(bytes, hitRatio);
    api(ApiKind.OTHER, "cuStreamSetAttribute", ++correlation, t0);
  }

  @Override
  public Blas blas() {
    return blas;
  }

  @Override
  public StateSampler sampler() {
    return sampler;
  }

  @Override
  public EventTracer tracer() {
    return tracer;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    tracer.stop();
    closed = true;
  }

  // ------------------------------------------------------------------ telemetry

  private static final long UTIL_WINDOW_NS = 1_000_000_000L;
  private static final long IDLE_WINDOW_NS = 100_000_000L;

  private final StateSampler sampler = new StateSampler() {
    @Override
    public Set<StateField> supported() {
      return EnumSet.of(StateField.GPU_UTILIZATION, StateField.MEMORY_UTILIZATION, StateField.MEMORY_USED,
          StateField.MEMORY_FREE, StateField.MEMORY_TOTAL, StateField.POWER, StateField.POWER_LIMIT,
          StateField.SM_CLOCK, StateField.GRAPHICS_CLOCK, StateField.TEMPERATURE, StateField.CLOCK_EVENT_REASONS,
          StateField.PCIE_TX, StateField.PCIE_RX, StateField.RETIRED_PAGES, StateField.OTHER_PROCESSES,
          StateField.OTHER_SM_UTILIZATION);
    }

    @Override
    public StateSample sample() {
      return sampleNow();
    }
  };

  synchronized StateSample sampleNow() {
    governor.advance(host, activity);
    long from = Math.max(0, host - UTIL_WINDOW_NS);
    double util = host == 0 ? 0 : activity.utilization(from, host);
    double recent = host == 0 ? 0 : activity.utilization(Math.max(0, host - IDLE_WINDOW_NS), host);
    boolean idle = recent == 0;
    double clock = idle ? Math.min(spec.idleClockMHz(), governor.clockMHz()) : governor.clockMHz();
    long reasons = governor.reasons() | (idle ? ClockReason.GPU_IDLE : 0);
    Map<StateField, Double> m = new LinkedHashMap<>();
    m.put(StateField.GPU_UTILIZATION, Math.rint(util * 100));
    m.put(StateField.MEMORY_UTILIZATION, Math.rint(activity.memoryUtilization(from, host) * 100));
    MemInfo mi = memInfoUnlocked();
    m.put(StateField.MEMORY_USED, (double) mi.usedBytes());
    m.put(StateField.MEMORY_FREE, (double) mi.freeBytes());
    m.put(StateField.MEMORY_TOTAL, (double) mi.totalBytes());
    m.put(StateField.POWER, Math.round(governor.powerW() * 1000) / 1000.0);
    m.put(StateField.POWER_LIMIT, governor.powerLimitW());
    m.put(StateField.SM_CLOCK, Math.rint(clock));
    m.put(StateField.GRAPHICS_CLOCK, Math.rint(clock));
    m.put(StateField.TEMPERATURE, Math.rint(governor.temperatureC()));
    m.put(StateField.CLOCK_EVENT_REASONS, (double) reasons);
    m.put(StateField.PCIE_TX, Math.rint(activity.txRate(from, host)));
    m.put(StateField.PCIE_RX, Math.rint(activity.rxRate(from, host)));
    InjectedFault ecc = fault("ecc-retirement");
    m.put(StateField.RETIRED_PAGES, ecc == null ? 0.0 : ecc.param("pages"));
    // the other tenants, present while their faults are active: the noisy neighbour, using the SMs it holds, and the
    // time-slicing context, using the whole device for its share of the time
    int sms = spec.hardware().multiprocessors();
    int held = sms - smsAvailable();
    boolean slicing = slices != null && slices.activeAt(host);
    m.put(StateField.OTHER_PROCESSES, (fault("noisy-neighbour") != null ? 1.0 : 0.0) + (slicing ? 1.0 : 0.0));
    m.put(StateField.OTHER_SM_UTILIZATION,
        Math.rint(Math.min(100.0, 100.0 * held / sms + (slicing ? 100.0 * slices.otherShare() : 0.0))));
    return StateSample.of(DEVICE, host, m);
  }

  private MemInfo memInfoUnlocked() {
    long total = spec.hardware().memoryBytes();
    return new MemInfo(total - plainBytes - pool.reserved, total);
  }

  // ------------------------------------------------------------------ trace-driven replay hooks

  /** Host time passes outside any API call (the job's own host work). */
  public synchronized void hostWork(long ns) {
    host += Math.max(0, ns);
  }

  synchronized void replayLaunch(String name, LaunchConfig c, Work w, long fixedNs, int streamId, String api,
      boolean hostCost) {
    SimStream s = streamForId(streamId);
    long t0 = host;
    long corr = ++correlation;
    if (hostCost) {
      host += hostCost(spec.hardware().launchLatencyNs());
    }
    admit(s);
    enqueueKernel(name, c, w == null ? Work.NONE : w, s, corr, w == null ? fixedNs : -1, -1);
    api(ApiKind.LAUNCH, api, corr, t0);
  }

  synchronized void replayGraphLaunch(List<Runnable> kernels) {
    long t0 = host;
    host += hostCost(spec.graphLaunchNs());
    long corr = ++correlation;
    graphCorrelation = corr;
    kernels.forEach(Runnable::run);
    graphCorrelation = -1;
    api(ApiKind.LAUNCH, "cuGraphLaunch", corr, t0);
  }

  private long graphCorrelation = -1;

  /** A kernel inside a replayed graph: no host cost, the graph launch's correlation id. */
  synchronized void replayGraphNode(String name, LaunchConfig c, Work w, long fixedNs, int streamId) {
    SimStream s = streamForId(streamId);
    enqueueKernel(name, c, w == null ? Work.NONE : w, s, graphCorrelation, w == null ? fixedNs : -1, -1);
  }

  synchronized void replayCopy(CopyKind kind, long bytes, MemoryKind src, MemoryKind dst, int streamId,
      boolean sync, int waitForStream) {
    SimStream s = streamForId(streamId);
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    admit(s);
    boolean pageable = src == MemoryKind.PAGEABLE || dst == MemoryKind.PAGEABLE;
    long end = enqueueCopy(kind, bytes, src, dst, s, corr, sync || pageable || kind == CopyKind.HTOH);
    if (waitForStream >= 0) {
      SimStream w = streamForId(waitForStream);
      w.tail = Math.max(w.tail, end);
    }
    api(ApiKind.COPY, sync ? "cuMemcpy" : "cuMemcpyAsync", corr, t0);
  }

  synchronized void replayMemset(long bytes, int value, int streamId) {
    SimStream s = streamForId(streamId);
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    admit(s);
    enqueueMemset(bytes, value, s, corr);
    api(ApiKind.MEMSET, "cuMemsetD8Async", corr, t0);
  }

  /** An allocation or free: {@code plain} ones synchronize and cost the allocator's time, pooled ones do not. */
  /**
   * A replayed allocator call. A plain one waits for the device, then costs the model's size-independent part, or
   * {@code recordedOwnNs} (what the call cost the recorded job besides waiting) where that is over
   * {@link #RECORDED_COST_FACTOR} times the model's: API records carry no sizes, and a real driver's cost grows with
   * them.
   */
  synchronized void replayAllocator(boolean alloc, boolean plain, String name, long recordedOwnNs) {
    long t0 = host;
    long corr = ++correlation;
    if (plain) {
      waitDevice();
      double model = alloc ? mallocCost(0) : spec.freeNs();
      host += hostCost(recordedOwnNs > RECORDED_COST_FACTOR * model ? recordedOwnNs : model);
    } else {
      host += hostCost(alloc ? spec.poolAllocNs() : spec.copyApiNs());
    }
    api(alloc ? ApiKind.ALLOC : ApiKind.FREE, name, corr, t0);
  }

  /** How far above the model a recorded allocator cost must be to replace it (noise and jitter stay below). */
  static final double RECORDED_COST_FACTOR = 1.5;

  synchronized void replaySync(SyncKind kind, int streamId) {
    boolean onStream = streamId >= 0 && kind != SyncKind.CONTEXT;
    hostWaits(kind, kind == SyncKind.CONTEXT ? -1 : streamId, onStream ? streamForId(streamId).tail : deviceTail,
        switch (kind) {
          case CONTEXT -> "cuCtxSynchronize";
          case EVENT -> "cuEventSynchronize";
          default -> "cuStreamSynchronize";
        });
  }

  /**
   * A synchronizing host call: the call's own cost, then the host waits until {@code until}; the pool trims as at
   * every synchronization; a {@link SyncRecord} and the API record follow.
   */
  private void hostWaits(SyncKind kind, int stream, long until, String function) {
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    if (until > host) {
      long wake = switch (scheduling) {
        case AUTO, SPIN -> 0;
        case YIELD -> hostCost(YIELD_WAKE_NS);
        case BLOCKING_SYNC -> hostCost(BLOCKING_WAKE_NS);
      };
      if (scheduling == SchedulingMode.BLOCKING_SYNC) {
        hostSlept += until - host + wake;
      }
      host = until + wake;
    }
    pool.trim();
    if (tracer.on()) {
      tracer.emit(new SyncRecord(kind, DEVICE, stream, corr, t0, host));
    }
    api(ApiKind.SYNC, function, corr, t0);
  }

  /** A stream waits for all work queued so far on the other streams (a join). */
  synchronized void replayJoin(int streamId) {
    SimStream s = streamForId(streamId);
    long t0 = host;
    long corr = ++correlation;
    host += hostCost(spec.copyApiNs());
    for (SimStream o : streams) {
      s.tail = Math.max(s.tail, o.tail);
    }
    if (tracer.on()) {
      tracer.emit(new SyncRecord(SyncKind.STREAM_WAIT_EVENT, DEVICE, s.id, corr, t0, host));
    }
    api(ApiKind.SYNC, "cuStreamWaitEvent", corr, t0);
  }

  synchronized void replayOther(String name, long ns) {
    long t0 = host;
    host += Math.max(0, ns);
    api(ApiKind.OTHER, name, ++correlation, t0);
  }

  /** When all queued work is done and the host has reached it. */
  synchronized long makespanEnd() {
    return Math.max(host, deviceTail);
  }

  // ------------------------------------------------------------------ resources

  /** The default stream-ordered pool: reserves memory, serves allocations from it, trims at synchronizations. */
  private final class SimPool implements MemPool {
    long reserved;
    long used;
    long threshold;

    /** Host time of a stream-ordered allocation of {@code bytes}. */
    double alloc(long bytes) {
      used += bytes;
      if (used <= reserved) {
        return spec.poolAllocNs();
      }
      long grow = used - reserved;
      reserved = used;
      return spec.poolGrowNs() + spec.mallocNsPerMiB() * ((double) grow / MiB);
    }

    void trim() {
      reserved = Math.max(used, Math.min(reserved, threshold));
    }

    @Override
    public long releaseThreshold() {
      synchronized (SimDevice.this) {
        return threshold;
      }
    }

    @Override
    public void setReleaseThreshold(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("negative pool release threshold " + bytes);
      }
      synchronized (SimDevice.this) {
        threshold = bytes;
        query("cuMemPoolSetAttribute");
      }
    }

    @Override
    public long reservedBytes() {
      synchronized (SimDevice.this) {
        return reserved;
      }
    }
  }

  /**
   * Device memory backed by a little-endian heap buffer, made when first touched (a copy, memset or kernel argument),
   * so untouched allocations cost no host memory; freed memory (pooled or plain) hands its buffer to the next
   * allocation of the same size (CUDA leaves new allocations' contents undefined).
   */
  static final class SimMemory implements DeviceMemory {
    final SimDevice device;
    final long bytes;
    final boolean pooled;
    private ByteBuffer data;
    boolean freed;

    SimMemory(SimDevice device, long bytes, boolean pooled) {
      this.device = device;
      this.bytes = bytes;
      this.pooled = pooled;
    }

    ByteBuffer data() {
      if (data == null) {
        data = device.buffer((int) bytes);
      }
      return data;
    }

    /** Gives the backing buffer back for reuse. */
    ByteBuffer release() {
      ByteBuffer b = data;
      data = null;
      return b;
    }

    @Override
    public boolean pooled() {
      return pooled;
    }

    @Override
    public java.util.Optional<ByteBuffer> hostView() {
      if (freed) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of(data().asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN).clear());
    }

    @Override
    public long bytes() {
      return bytes;
    }

    @Override
    public void close() {
      device.free(this, pooled ? "cuMemFreeAsync" : "cuMemFree_v2");
    }
  }

  /** Recycled backing buffers of freed memory, by size; bounded by {@link #RECYCLE_LIMIT} bytes. */
  private final Map<Integer, ArrayList<ByteBuffer>> recycled = new java.util.HashMap<>();
  private long recycledBytes;
  private static final long RECYCLE_LIMIT = 256L << 20;

  private synchronized ByteBuffer buffer(int bytes) {
    ArrayList<ByteBuffer> l = recycled.get(bytes);
    if (l != null && !l.isEmpty()) {
      recycledBytes -= bytes;
      return l.removeLast();
    }
    return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  private void recycle(SimMemory m) {
    ByteBuffer b = m.release();
    if (b != null && recycledBytes + m.bytes <= RECYCLE_LIMIT) {
      recycled.computeIfAbsent((int) m.bytes, k -> new ArrayList<>()).add(b);
      recycledBytes += m.bytes;
    }
  }

  static final class SimHostMemory implements HostMemory {
    final SimDevice device;
    final long bytes;
    final HostMemoryKind kind;
    final ByteBuffer data;
    boolean freed;

    SimHostMemory(SimDevice device, long bytes, HostMemoryKind kind) {
      this.device = device;
      this.bytes = bytes;
      this.kind = kind;
      this.data = ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
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
      return bytes;
    }

    @Override
    public void close() {
      device.freeHost(this);
    }
  }

  static final class SimEvent implements Event {
    final SimDevice device;
    final boolean timing;
    long time = -1;
    int stream = -1;

    SimEvent(SimDevice device, boolean timing) {
      this.device = device;
      this.timing = timing;
    }

    @Override
    public void record(Stream stream) {
      device.recordEvent(this, stream);
    }

    @Override
    public void synchronize() {
      device.synchronize(this);
    }

    @Override
    public float elapsedMillisSince(Event start) {
      if (!(start instanceof SimEvent s) || s.device != device) {
        throw new DeviceException("cuEventElapsedTime", 400, "CUDA_ERROR_INVALID_HANDLE", "event of another device");
      }
      return device.elapsed(s, this);
    }

    @Override
    public void close() {
    }
  }

  static final class SimGraph implements GraphExec {
    final SimDevice device;
    final List<SimStream.Node> nodes;
    boolean closed;

    SimGraph(SimDevice device, List<SimStream.Node> nodes) {
      this.device = device;
      this.nodes = nodes;
    }

    @Override
    public int nodes() {
      return nodes.size();
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  static final class SimModule implements Module {
    final SimDevice device;
    final KernelModule source;
    private final Map<String, SimKernel> kernels = new LinkedHashMap<>();

    SimModule(SimDevice device, KernelModule source) {
      this.device = device;
      this.source = source;
    }

    @Override
    public KernelModule source() {
      return source;
    }

    @Override
    public synchronized Kernel kernel(String entry) {
      KernelDef def = source.kernel(entry).orElseThrow(() -> new DeviceException("cuModuleGetFunction", 500,
          "CUDA_ERROR_NOT_FOUND", "module " + source.name() + " has no kernel '" + entry + "'"));
      device.query("cuModuleGetFunction");
      return kernels.computeIfAbsent(entry, e -> new SimKernel(this, def));
    }

    @Override
    public void close() {
    }
  }

  static final class SimKernel implements Kernel {
    final SimModule module;
    final KernelDef def;
    volatile int carveout = -1;
    volatile int maxDynamicShared = 48 * 1024;
    volatile LaunchConfig fitted;
    final TimingMemo memo = new TimingMemo();

    SimKernel(SimModule module, KernelDef def) {
      this.module = module;
      this.def = def;
    }

    @Override
    public KernelDef def() {
      return def;
    }

    @Override
    public int registersPerThread() {
      return KernelTiming.ASSUMED_REGISTERS;
    }

    @Override
    public void setPreferredSharedCarveout(int percent) {
      if (percent < -1 || percent > 100) {
        throw new DeviceException("cuFuncSetAttribute", 1, "CUDA_ERROR_INVALID_VALUE", "carve-out " + percent + "%");
      }
      module.device.query("cuFuncSetAttribute");
      carveout = percent;
      fitted = null;
    }

    @Override
    public void setMaxDynamicSharedBytes(int bytes) {
      int max = module.device.spec.sharedPerSm() - KernelTiming.RESERVED_SHARED_PER_BLOCK;
      if (bytes < 0 || bytes > max) {
        throw new DeviceException("cuFuncSetAttribute", 1, "CUDA_ERROR_INVALID_VALUE",
            "dynamic shared memory " + bytes + " outside 0.." + max);
      }
      maxDynamicShared = bytes;
      fitted = null;
    }

    /** Whether {@code c} is the last launch shape that passed the resource checks under the present attributes. */
    boolean fits(LaunchConfig c) {
      return c.equals(fitted);
    }
  }

  /** Rounds an FP32 value to the precision a math mode feeds the tensor cores (TF32: 10, BF16: 7 mantissa bits). */
  static float roundFor(MathMode mode, float v) {
    int drop = switch (mode) {
      case DEFAULT -> 0;
      case TF32 -> 13;
      case BF16 -> 16;
    };
    if (drop == 0 || !Float.isFinite(v)) {
      return v;
    }
    int bits = Float.floatToRawIntBits(v);
    int half = 1 << (drop - 1);
    int lsb = (bits >>> drop) & 1;
    bits = (bits + half - 1 + lsb) & ~((1 << drop) - 1);
    return Float.intBitsToFloat(bits);
  }
}
