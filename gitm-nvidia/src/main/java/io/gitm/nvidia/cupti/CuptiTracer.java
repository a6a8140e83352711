package io.gitm.nvidia.cupti;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.gitm.api.Ticker;
import io.gitm.device.DeviceProvider.Probe;
import io.gitm.device.EventTracer;
import io.gitm.device.UnsupportedFeatureException;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeLibraries;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TraceSink;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * In-process CUPTI activity tracing: concurrent kernels, memcpy (with memory kinds), memset, synchronization,
 * driver and runtime API calls, and CUPTI's own overhead, decoded into {@code io.gitm.trace} records and handed
 * to a {@link TraceSink} (from a CUPTI thread, or from the thread calling {@link #flush()}).
 *
 * <p>CUPTI stamps records with its own clock ({@code CLOCK_REALTIME} on Linux); at {@link #start} the offset to
 * the host {@code CLOCK_MONOTONIC} (the given {@link Ticker}, {@code System.nanoTime} by default) is measured by
 * bracketing and subtracted from every record, so records are in {@link ClockDomain#HOST_MONOTONIC}; at
 * {@link #stop} it is measured again and the drift recorded in {@link #meta()}.
 *
 * <p>CUPTI's activity API is per process: one tracer traces at a time.
 */
public final class CuptiTracer implements EventTracer {
  /** The activity kinds enabled by default, in order. */
  static final int[] ALL_KINDS = {CuptiLayout.KIND_CONCURRENT_KERNEL, CuptiLayout.KIND_MEMCPY,
      CuptiLayout.KIND_MEMSET, CuptiLayout.KIND_SYNCHRONIZATION, CuptiLayout.KIND_DRIVER, CuptiLayout.KIND_RUNTIME,
      CuptiLayout.KIND_OVERHEAD};
  private static final int ALIGNMENT_SAMPLES = 200;
  static final long BUFFER_BYTES = 4L << 20;
  static final int MAX_BUFFERS = 64;

  private static final AtomicReference<CuptiTracer> ACTIVE = new AtomicReference<>();
  private static final ConcurrentLinkedQueue<MemorySegment> FREE_BUFFERS = new ConcurrentLinkedQueue<>();
  private static final Map<Long, MemorySegment> BUFFERS = new ConcurrentHashMap<>();
  private static final AtomicInteger ALLOCATED = new AtomicInteger();
  private static final LongAdder REFUSED = new LongAdder();
  private static volatile boolean callbacksRegistered;
  /** Set when CUPTI refused tracing in this process: why, for {@link #availability()}. */
  private static volatile CuptiException denial;

  /** Sees every raw activity record before it is decoded (used to record CI fixtures); null when unused. */
  @FunctionalInterface
  interface RawTap {
    void record(MemorySegment activity);
  }

  static volatile RawTap rawTap;

  private final List<TraceDevice> devices;
  private final Map<String, String> baseAttributes;
  private final Ticker host;
  private final int[] kinds;
  private volatile TraceSink sink;
  private volatile ActivityDecoder decoder;
  private volatile ClockAlignment startAlignment;
  private volatile ClockAlignment stopAlignment;
  private volatile long droppedAtStop = -1;
  private final LongAdder kernels = new LongAdder();
  private final LongAdder copies = new LongAdder();
  private final LongAdder memsets = new LongAdder();
  private final LongAdder syncs = new LongAdder();
  private final LongAdder apiCalls = new LongAdder();
  private final LongAdder overheads = new LongAdder();
  private final LongAdder sinkErrors = new LongAdder();
  private final LongAdder bufferErrors = new LongAdder();
  private final AtomicReference<Throwable> firstError = new AtomicReference<>();

  /**
   * What one tracing session delivered and lost: records per type, records without valid timestamps, records of
   * kinds not modelled, records CUPTI dropped for lack of buffers (-1 until stopped), buffer requests refused
   * (process-wide: buffers are shared by every tracer), records the sink threw on, and buffers that could not be
   * read to their end.
   */
  public record Stats(long kernels, long copies, long memsets, long syncs, long apiCalls, long overheads,
      long invalid, long ignored, long dropped, long refusedBuffers, long sinkErrors, long bufferErrors) {
    public long delivered() {
      return kernels + copies + memsets + syncs + apiCalls + overheads;
    }
  }

  CuptiTracer(List<TraceDevice> devices, Map<String, String> attributes, Ticker host) {
    this(devices, attributes, host, ALL_KINDS);
  }

  /** A tracer that enables only {@code kinds} (CUpti_ActivityKind values), e.g. to measure what each kind costs. */
  CuptiTracer(List<TraceDevice> devices, Map<String, String> attributes, Ticker host, int[] kinds) {
    this.kinds = kinds.clone();
    this.devices = List.copyOf(devices);
    this.baseAttributes = Map.copyOf(attributes);
    this.host = Objects.requireNonNull(host, "host clock");
  }

  /** A tracer for the given devices (the caller's device table), on the host monotonic clock. */
  public static CuptiTracer create(List<TraceDevice> devices) {
    return new CuptiTracer(devices, Map.of(), Ticker.system());
  }

  /**
   * A tracer whose device table is read from the CUDA driver (every device, with name and UUID); where the driver
   * cannot be read the table is empty and the meta attribute {@code devices.error} says why.
   */
  public static CuptiTracer create() {
    Map<String, String> attrs = new LinkedHashMap<>();
    List<TraceDevice> devs = List.of();
    try {
      Driver d = Driver.instance();
      devs = d.traceDevices();
      attrs.put("cuda.driverApiVersion", d.cudaVersion());
    } catch (RuntimeException e) {
      attrs.put("devices.error", e.getMessage());
    }
    return new CuptiTracer(devs, attrs, Ticker.system());
  }

  @Override
  public Probe availability() {
    Cupti c;
    try {
      c = Cupti.instance();
    } catch (RuntimeException e) {
      return Probe.no("CUPTI unavailable: " + e.getMessage(), Cupti.FIX);
    }
    if (NativeLibraries.tryFind("cuda").isEmpty()) {
      return Probe.no("no NVIDIA driver (libcuda not found): CUPTI has no GPU to trace",
          "install the NVIDIA driver, or run where a GPU is visible");
    }
    CuptiException d = denial;
    if (d != null) {
      return Probe.no("CUPTI tracing not permitted in this process: " + d.getMessage(), permissionFix());
    }
    try {
      return Probe.ok("CUPTI " + c.version() + " from " + c.library.origin(), devices.size());
    } catch (RuntimeException e) {
      return Probe.no("CUPTI at " + c.library.origin() + " does not answer: " + e.getMessage(), Cupti.FIX);
    }
  }

  static String kindName(int kind) {
    return switch (kind) {
      case CuptiLayout.KIND_MEMCPY -> "MEMCPY";
      case CuptiLayout.KIND_MEMSET -> "MEMSET";
      case CuptiLayout.KIND_KERNEL -> "KERNEL";
      case CuptiLayout.KIND_DRIVER -> "DRIVER";
      case CuptiLayout.KIND_RUNTIME -> "RUNTIME";
      case CuptiLayout.KIND_CONCURRENT_KERNEL -> "CONCURRENT_KERNEL";
      case CuptiLayout.KIND_OVERHEAD -> "OVERHEAD";
      case CuptiLayout.KIND_SYNCHRONIZATION -> "SYNCHRONIZATION";
      default -> Integer.toString(kind);
    };
  }

  static String permissionFix() {
    return "allow GPU profiling for this user: run as root or with CAP_SYS_ADMIN, or set the nvidia kernel module "
        + "option NVreg_RestrictProfilingToAdminUsers=0; on vGPU/MIG/WSL/confidential-computing devices tracing "
        + "may be unsupported. gitm goes on with state telemetry only";
  }

  @Override
  public TraceMeta meta() {
    Map<String, String> a = new LinkedHashMap<>(baseAttributes);
    a.put("tracer", "in-process CUPTI activity API");
    a.put("cupti.kinds", Arrays.stream(kinds).mapToObj(CuptiTracer::kindName)
        .collect(Collectors.joining(",")));
    a.put("kernelNames", "as CUPTI reports them (mangled)");
    try {
      Cupti c = Cupti.instance();
      a.put("cupti.library", c.library.origin());
      a.put("cupti.version", Integer.toString(c.version()));
    } catch (RuntimeException e) {
      a.put("cupti.error", String.valueOf(e.getMessage()));
    }
    ClockAlignment s = startAlignment;
    if (s == null) {
      a.put("clock.alignment", "not measured yet (measured when tracing starts)");
    } else {
      a.put("clock.alignment", "CUPTI timestamps (cuptiGetTimestamp, CLOCK_REALTIME on Linux) minus a constant "
          + "offset to the host CLOCK_MONOTONIC (System.nanoTime), measured at start by bracketing "
          + "cuptiGetTimestamp between two host reads, tightest of " + s.samples());
      a.put("clock.offsetNs", Long.toString(s.offsetNs()));
      a.put("clock.uncertaintyNs", Long.toString(s.uncertaintyNs()));
      ClockAlignment e = stopAlignment;
      if (e != null) {
        a.put("clock.driftNs", Long.toString(e.offsetNs() - s.offsetNs()));
        a.put("clock.driftUncertaintyNs", Long.toString(e.uncertaintyNs() + s.uncertaintyNs()));
      }
    }
    return new TraceMeta("cupti", ClockDomain.HOST_MONOTONIC, devices, a);
  }

  /**
   * Enables activity tracing. Throws {@link UnsupportedFeatureException} where CUPTI is missing,
   * {@link CuptiException} where CUPTI refuses ({@link CuptiException#profilingNotPermitted()} tells whether this
   * process may not trace the GPU), and {@link IllegalStateException} while another tracer is tracing.
   */
  @Override
  public void start(TraceSink sink) {
    Objects.requireNonNull(sink, "sink");
    Cupti c = Cupti.instance();
    if (NativeLibraries.tryFind("cuda").isEmpty()) {
      throw new UnsupportedFeatureException("dlopen(libcuda)", "no NVIDIA driver found: CUPTI has no GPU to trace");
    }
    if (!ACTIVE.compareAndSet(null, this)) {
      throw new IllegalStateException(ACTIVE.get() == this ? "this CuptiTracer is already tracing"
          : "another CuptiTracer is tracing this process; CUPTI activity tracing is per process");
    }
    int enabled = 0;
    try {
      registerCallbacks(c);
      ClockAlignment alignment = ClockAlignment.measure(host, c::timestamp, ALIGNMENT_SAMPLES);
      this.startAlignment = alignment;
      this.stopAlignment = null;
      this.droppedAtStop = -1;
      this.decoder = new ActivityDecoder(c::callbackName, alignment.offsetNs());
      this.sink = sink;
      for (; enabled < kinds.length; enabled++) {
        int rc = c.enable(kinds[enabled]);
        if (rc != 0) {
          CuptiException e = new CuptiException("cuptiActivityEnable(CUPTI_ACTIVITY_KIND_"
              + kindName(kinds[enabled]) + ")", rc, CuptiException.notPermitted(rc) ? permissionFix() : "");
          if (e.profilingNotPermitted()) {
            denial = e;
          }
          throw e;
        }
      }
    } catch (RuntimeException e) {
      for (int i = 0; i < enabled; i++) {
        c.disable(kinds[i]);
      }
      this.sink = null;
      ACTIVE.compareAndSet(this, null);
      throw e;
    }
  }

  private static void registerCallbacks(Cupti c) {
    if (callbacksRegistered) {
      return;
    }
    synchronized (CuptiTracer.class) {
      if (!callbacksRegistered) {
        try {
          var lookup = MethodHandles.lookup();
          MemorySegment requested = Native.upcall(lookup.findStatic(CuptiTracer.class, "bufferRequested",
                  MethodType.methodType(void.class, MemorySegment.class, MemorySegment.class, MemorySegment.class)),
              FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
          MemorySegment completed = Native.upcall(lookup.findStatic(CuptiTracer.class, "bufferCompleted",
                  MethodType.methodType(void.class, MemorySegment.class, int.class, MemorySegment.class, long.class,
                      long.class)),
              FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
          int rc = c.registerCallbacks(requested, completed);
          if (rc != 0) {
            CuptiException e = new CuptiException("cuptiActivityRegisterCallbacks", rc,
                CuptiException.notPermitted(rc) ? permissionFix() : "");
            if (e.profilingNotPermitted()) {
              denial = e;
            }
            throw e;
          }
          callbacksRegistered = true;
        } catch (NoSuchMethodException | IllegalAccessException e) {
          throw new IllegalStateException("CUPTI buffer callbacks not found", e);
        }
      }
    }
  }

  /** CUPTI asks for an empty buffer (any thread). Never throws: an exception here would abort the JVM. */
  private static void bufferRequested(MemorySegment bufferOut, MemorySegment sizeOut, MemorySegment maxRecordsOut) {
    try {
      MemorySegment b = FREE_BUFFERS.poll();
      if (b == null && ALLOCATED.incrementAndGet() <= MAX_BUFFERS) {
        b = Arena.global().allocate(BUFFER_BYTES, 8);
        BUFFERS.put(b.address(), b);
      }
      if (b == null) {
        REFUSED.increment();
      }
      bufferOut.reinterpret(ADDRESS.byteSize()).set(ADDRESS, 0, b == null ? MemorySegment.NULL : b);
      sizeOut.reinterpret(8).set(JAVA_LONG, 0, b == null ? 0 : BUFFER_BYTES);
      maxRecordsOut.reinterpret(8).set(JAVA_LONG, 0, 0L);
    } catch (Throwable t) {
      REFUSED.increment();
    }
  }

  /** CUPTI hands back a filled buffer (a CUPTI thread, or a flushing thread). Never throws. */
  private static void bufferCompleted(MemorySegment context, int streamId, MemorySegment buffer, long size,
      long validSize) {
    MemorySegment owned = BUFFERS.get(buffer.address());
    try {
      CuptiTracer t = ACTIVE.get();
      if (validSize > 0 && t != null) { // a buffer completed after stop has no tracer: its records are dropped
        t.drain(buffer.reinterpret(size), validSize);
      }
    } catch (Throwable e) {
      CuptiTracer t = ACTIVE.get();
      if (t != null) {
        t.bufferErrors.increment();
        t.firstError.compareAndSet(null, e);
      }
    } finally {
      if (owned != null) {
        FREE_BUFFERS.add(owned);
      }
    }
  }

  private void drain(MemorySegment buffer, long validSize) {
    Cupti c = Cupti.instance();
    ActivityDecoder dec = decoder;
    TraceSink out = sink;
    if (dec == null || out == null) {
      return;
    }
    try (Arena a = Arena.ofConfined()) {
      MemorySegment cursor = a.allocate(ADDRESS);
      cursor.set(ADDRESS, 0, MemorySegment.NULL);
      while (true) {
        int rc = c.nextRecord(buffer, validSize, cursor);
        if (rc != 0) {
          if (rc != 12) { // CUPTI_ERROR_MAX_LIMIT_REACHED: the end of the buffer
            bufferErrors.increment();
            firstError.compareAndSet(null, new CuptiException("cuptiActivityGetNextRecord", rc, ""));
          }
          return;
        }
        MemorySegment activity = cursor.get(ADDRESS, 0).reinterpret(CuptiLayout.MAX_SIZE);
        RawTap tap = rawTap;
        if (tap != null) {
          tap.record(activity);
        }
        TraceRecord r = dec.decode(activity);
        if (r == null) {
          continue;
        }
        count(r);
        try {
          out.accept(r);
        } catch (RuntimeException e) {
          sinkErrors.increment();
          firstError.compareAndSet(null, e);
        }
      }
    }
  }

  /** Whether a session is delivering records now. */
  public boolean running() {
    return sink != null;
  }

  /**
   * Delivers a record the host produced itself (the declared work of a launch) to the running session's sink, on the
   * calling thread; nothing when no session runs.
   */
  public void annotate(TraceRecord r) {
    TraceSink out = sink;
    if (out == null) {
      return;
    }
    try {
      out.accept(r);
    } catch (RuntimeException e) {
      sinkErrors.increment();
      firstError.compareAndSet(null, e);
    }
  }

  private void count(TraceRecord r) {
    switch (r) {
      case KernelRecord k -> kernels.increment();
      case CopyRecord k -> copies.increment();
      case MemsetRecord k -> memsets.increment();
      case SyncRecord k -> syncs.increment();
      case ApiCallRecord k -> apiCalls.increment();
      case OverheadRecord k -> overheads.increment();
      default -> {
      }
    }
  }

  /** Delivers every record CUPTI holds ({@code cuptiActivityFlushAll} forced); synchronize the device first. */
  @Override
  public void flush() {
    if (ACTIVE.get() != this) {
      return;
    }
    Cupti.check("cuptiActivityFlushAll", Cupti.instance().flushAll(1));
  }

  /** Flushes, disables every activity kind and releases the process's CUPTI for the next tracer; idempotent. */
  @Override
  public void stop() {
    if (ACTIVE.get() != this) {
      return;
    }
    Cupti c = Cupti.instance();
    List<RuntimeException> failures = new ArrayList<>();
    int rc = c.flushAll(1);
    if (rc != 0) {
      failures.add(new CuptiException("cuptiActivityFlushAll", rc, ""));
    }
    for (int kind : kinds) {
      int d = c.disable(kind);
      if (d != 0) {
        failures.add(new CuptiException("cuptiActivityDisable(CUPTI_ACTIVITY_KIND_" + kindName(kind) + ")", d, ""));
      }
    }
    droppedAtStop = c.droppedRecords();
    try {
      stopAlignment = ClockAlignment.measure(host, c::timestamp, ALIGNMENT_SAMPLES);
    } catch (RuntimeException e) {
      failures.add(e);
    }
    sink = null;
    ACTIVE.compareAndSet(this, null);
    if (!failures.isEmpty()) {
      RuntimeException first = failures.getFirst();
      failures.stream().skip(1).forEach(first::addSuppressed);
      throw first;
    }
  }

  /** What this tracer delivered and lost so far. */
  public Stats stats() {
    ActivityDecoder d = decoder;
    return new Stats(kernels.sum(), copies.sum(), memsets.sum(), syncs.sum(), apiCalls.sum(), overheads.sum(),
        d == null ? 0 : d.invalid(), d == null ? 0 : d.ignored(), droppedAtStop, REFUSED.sum(), sinkErrors.sum(),
        bufferErrors.sum());
  }

  /** The first error met while decoding or delivering records (a sink's exception, a CUPTI error), if any. */
  public Optional<Throwable> firstError() {
    return Optional.ofNullable(firstError.get());
  }
}
