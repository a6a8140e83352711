package io.gitm.nvidia.nvml;

import io.gitm.api.Ticker;
import io.gitm.device.DeviceException;
import io.gitm.device.StateSampler;
import io.gitm.nvidia.ffm.ErrorCodes;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeFunction;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reads one device's state through NVML. Fields are read in tiers, by how fast they change:
 * <ul>
 *   <li><b>every sample</b>: GPU and memory utilization, memory used/free/total (one {@code nvmlDeviceGetMemoryInfo}
 *       call; the total comes in the same struct), power, SM/memory/graphics clocks, temperature, clock-event
 *       reasons: 8 NVML calls;</li>
 *   <li><b>counters</b>, read at most every {@link Intervals#counters()} (default: every second): PCIe and NVLink
 *       throughput, all field ids in one {@code nvmlDeviceGetFieldValues} call. They are rates of NVML's cumulative
 *       byte counters between two reads, differenced with wrap-around ({@link CounterRate}); the first read has them
 *       as NaN. On the same cadence, the device's other tenants: {@link StateField#OTHER_PROCESSES}, the compute
 *       processes ({@code nvmlDeviceGetComputeRunningProcesses}) whose pid is not one of the job's
 *       ({@link #jobProcesses}; by default this JVM's), and {@link StateField#OTHER_SM_UTILIZATION}, their SM
 *       utilization summed, each one's mean over the {@code nvmlDeviceGetProcessUtilization} samples since the
 *       previous read (a listed process without a sample was idle: 0); two calls each (count, then fill);</li>
 *   <li><b>slow</b>, read at most every {@link Intervals#slow()} (default 10 s): enforced power limit, the four ECC
 *       counters, retired pages, remapped rows: 8 NVML calls, all in the same sample when due;</li>
 *   <li><b>once</b>: which calls and field ids the device supports (found at open, see below); name and UUID are
 *       read once, when first asked for.</li>
 * </ul>
 * Intervals run on the sampler's {@link Ticker} from the read at open; a tier is read in the first sample at least
 * its interval after its last read, and its last values are carried forward in between, so every sample holds every
 * supported field, a counter or slow field being at most its interval plus one sampling period old.
 *
 * <p>A call the device or driver does not support (not supported, no permission, function missing) marks its fields
 * unsupported once, with the reason ({@link #unsupportedReasons}), and is not made again; a field id that
 * {@code nvmlDeviceGetFieldValues} reports unsupported is left out of later requests. Any other failure counts in
 * {@link #errors()}, leaves the call's fields NaN in that sample and is retried on the next one. Thread-safe: samples
 * are taken one at a time.
 */
public final class NvmlSampler implements StateSampler {
  /**
   * How often the tiers that are not read every sample are read: at most once per interval, on the sampler's ticker.
   * Zero reads the tier every sample.
   *
   * @param counters PCIe and NVLink byte counters (throughput), and the other processes on the device
   * @param slow power limit, ECC counters, retired pages, remapped rows
   */
  public record Intervals(Duration counters, Duration slow) {
    /**
     * PCIe/NVLink counters at most every second, slow fields at most every 10 s. The PCIe byte counters (one call for
     * both) cost far more to read than every field read each sample together, so reading them once a second keeps a
     * sample cheap, and their byte counts stay whole, averaged over one-second windows.
     */
    public static final Intervals DEFAULT = new Intervals(Duration.ofSeconds(1), Duration.ofSeconds(10));

    public Intervals {
      if (counters == null || slow == null) {
        throw new IllegalArgumentException("NVML sampling intervals must be given, got counters " + counters
            + ", slow " + slow);
      }
      if (counters.isNegative() || slow.isNegative()) {
        throw new IllegalArgumentException("NVML sampling intervals must not be negative, got counters " + counters
            + ", slow " + slow);
      }
    }

    long nanos(Tier tier) {
      return switch (tier) {
        case EVERY_SAMPLE -> 0;
        case COUNTERS -> saturatedNanos(counters);
        case SLOW -> saturatedNanos(slow);
      };
    }

    private static long saturatedNanos(Duration d) {
      return d.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : d.toNanos();
    }
  }

  /** How often a reader's call is made. */
  enum Tier {
    EVERY_SAMPLE, COUNTERS, SLOW
  }

  /** PCIe TX/RX and NVLink TX/RX: the field ids asked of nvmlDeviceGetFieldValues, their scope and scale. */
  private static final StateField[] RATE_FIELDS = {StateField.PCIE_TX, StateField.PCIE_RX, StateField.NVLINK_TX,
      StateField.NVLINK_RX};
  private static final int[] FIELD_IDS = {Nvml.FI_DEV_PCIE_COUNT_TX_BYTES, Nvml.FI_DEV_PCIE_COUNT_RX_BYTES,
      Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX};
  private static final int[] FIELD_SCOPES = {0, 0, Nvml.SCOPE_ALL_LINKS, Nvml.SCOPE_ALL_LINKS};
  /** PCIe counters count bytes, NVLink throughput counts KiB. */
  private static final double[] FIELD_SCALE = {1, 1, 1024, 1024};

  private final NvmlFunctions nvml;
  private final int index;
  private final MemorySegment device;
  private final Ticker ticker;
  private final Intervals intervals;
  private final Arena arena = Arena.ofShared();
  private final MemorySegment out;
  private final MemorySegment out2;
  private final MemorySegment out3;
  private final MemorySegment out4;
  private final MemorySegment fields;
  private final List<Reader> readers = new ArrayList<>();
  private final Map<StateField, String> reasons = Collections.synchronizedMap(new EnumMap<>(StateField.class));
  private final double[] carried = new double[StateField.values().length];
  private final CounterRate[] rates = new CounterRate[FIELD_IDS.length];
  /** The slots of FIELD_IDS still asked for, in order; {@code requested} of them. */
  private final int[] request = new int[FIELD_IDS.length];
  private int requested;
  private long errors;
  private long lastProcessSeen;
  /** NVML's timestamp (µs) of the newest utilization sample the other-process read has used. */
  private long tenantsLastSeen;
  private volatile Supplier<Set<Long>> jobPids = NvmlSampler::thisProcess;
  private String name;
  private String uuid;
  /** NVML's code of the last {@link #utilizationSamples} call: SUCCESS when it had samples or none to give. */
  private int utilizationCode;
  /** The code {@link #readTenants} returns when the job's pids could not be had: transient, retried. */
  private static final int TENANTS_UNKNOWN = 999;

  private NvmlSampler(NvmlFunctions nvml, int index, MemorySegment device, Ticker ticker, Intervals intervals,
      String unavailable) {
    if (intervals == null) {
      throw new IllegalArgumentException("NVML sampling intervals must be given");
    }
    this.nvml = nvml;
    this.index = index;
    this.device = device;
    this.ticker = ticker;
    this.intervals = intervals;
    this.out = arena.allocate(64, 8);
    this.out2 = arena.allocate(8, 8);
    this.out3 = arena.allocate(8, 8);
    this.out4 = arena.allocate(8, 8);
    this.fields = arena.allocate(Nvml.FIELD_VALUE_SIZE * FIELD_IDS.length, 8);
    for (int i = 0; i < FIELD_IDS.length; i++) {
      request[requested++] = i;
    }
    Arrays.fill(carried, Double.NaN);
    defineReaders();
    if (unavailable != null) {
      for (Reader r : readers) {
        r.markUnsupported(unavailable);
      }
    } else {
      sample();
    }
  }

  /** A sampler of {@code device} read through {@code nvml} (initialised), taking its first sample now. */
  static NvmlSampler of(NvmlFunctions nvml, int index, MemorySegment device, Ticker ticker, Intervals intervals) {
    return new NvmlSampler(nvml, index, device, ticker, intervals, null);
  }

  /** A sampler of device {@code index} in NVML's order; fails when NVML or the device is not there. */
  public static NvmlSampler open(int index, Ticker ticker) {
    return open(index, ticker, Intervals.DEFAULT);
  }

  /** Like {@link #open(int, Ticker)}, reading the counter and slow tiers at the given intervals. */
  public static NvmlSampler open(int index, Ticker ticker, Intervals intervals) {
    return new NvmlSampler(Nvml.LIB, index, Nvml.handleByIndex(index), ticker, intervals, null);
  }

  /**
   * The sampler of the device with {@code uuid} (as CUDA reports it), else NVML's device {@code fallbackIndex};
   * when NVML is not usable, a sampler that supports nothing and says why in {@link #unsupportedReasons}.
   */
  public static NvmlSampler forDevice(String uuid, int fallbackIndex, Ticker ticker) {
    try {
      MemorySegment h;
      try {
        h = Nvml.handleByUuid(uuid);
      } catch (DeviceException e) {
        h = Nvml.handleByIndex(fallbackIndex);
      }
      return new NvmlSampler(Nvml.LIB, fallbackIndex, h, ticker, Intervals.DEFAULT, null);
    } catch (DeviceException e) {
      return new NvmlSampler(Nvml.LIB, fallbackIndex, MemorySegment.NULL, ticker, Intervals.DEFAULT,
          "NVML not usable: " + e.getMessage());
    }
  }

  /** One sampler per device NVML sees. */
  public static List<NvmlSampler> all(Ticker ticker) {
    return all(ticker, Intervals.DEFAULT);
  }

  /** One sampler per device NVML sees, reading the counter and slow tiers at the given intervals. */
  public static List<NvmlSampler> all(Ticker ticker, Intervals intervals) {
    int n = Nvml.deviceCount();
    List<NvmlSampler> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(open(i, ticker, intervals));
    }
    return out;
  }

  /** NVML's index of this device. */
  public int index() {
    return index;
  }

  /** The intervals of the counter and slow tiers. */
  public Intervals intervals() {
    return intervals;
  }

  /** The device's name, read from NVML on the first call. */
  public synchronized String name() {
    if (name == null) {
      name = Nvml.text(nvml.deviceGetName, device, Nvml.NAME_BUFFER);
    }
    return name;
  }

  /** The device's UUID ({@code GPU-...}), read from NVML on the first call. */
  public synchronized String uuid() {
    if (uuid == null) {
      uuid = Nvml.text(nvml.deviceGetUUID, device, Nvml.UUID_BUFFER);
    }
    return uuid;
  }

  /** Why each unsupported field is unsupported (the NVML function and its code), recorded once. */
  public Map<StateField, String> unsupportedReasons() {
    synchronized (reasons) {
      return Map.copyOf(reasons);
    }
  }

  /**
   * Which pids are the job's, asked at each read of the other processes: every listed compute process not among them
   * is a neighbour. By default this JVM's pid (an in-process job); a black-box job's caller passes its process
   * group's pids. A supplier that throws leaves the read's fields NaN and counts in {@link #errors()}.
   */
  @Override
  public void jobProcesses(Supplier<Set<Long>> pids) {
    if (pids == null) {
      throw new IllegalArgumentException("the job's pids must be given as a supplier, got null");
    }
    this.jobPids = pids;
  }

  private static Set<Long> thisProcess() {
    return Set.of(ProcessHandle.current().pid());
  }

  /** Transient read failures so far (a supported call that failed for one sample). */
  public synchronized long errors() {
    return errors;
  }

  @Override
  public Set<StateField> supported() {
    EnumSet<StateField> s = EnumSet.allOf(StateField.class);
    s.removeAll(unsupportedReasons().keySet());
    return s;
  }

  @Override
  public synchronized StateSample sample() {
    double[] v = new double[carried.length];
    Arrays.fill(v, Double.NaN);
    long now = ticker.nanos();
    for (Reader r : readers) {
      if (r.unsupported) {
        continue;
      }
      long every = intervals.nanos(r.tier);
      if (every > 0 && r.hasRead && now - r.lastReadNs < every) {
        for (StateField f : r.fields) {
          v[f.ordinal()] = carried[f.ordinal()];
        }
        continue;
      }
      int rc;
      try {
        rc = r.read(v, now);
      } catch (DeviceException e) {
        r.markUnsupported(e.getMessage());
        continue;
      }
      if (rc == Nvml.SUCCESS) {
        r.hasRead = true;
        r.lastReadNs = now;
        for (StateField f : r.fields) {
          carried[f.ordinal()] = v[f.ordinal()];
        }
      } else if (permanent(rc)) {
        r.markUnsupported(r.function.name() + ": " + ErrorCodes.nvmlName(rc));
      } else {
        errors++;
      }
    }
    return new StateSample(index, now, v);
  }

  /** Codes that will not change on a later call. */
  static boolean permanent(int rc) {
    return rc == Nvml.ERROR_NOT_SUPPORTED || rc == Nvml.ERROR_NO_PERMISSION || rc == Nvml.ERROR_FUNCTION_NOT_FOUND
        || rc == Nvml.ERROR_DEPRECATED;
  }

  /** The processes on this device: memory (compute processes) and, where NVML has samples, SM/memory utilization. */
  public synchronized List<ProcessUsage> processes() {
    try (Arena a = Arena.ofConfined()) {
      List<long[]> listed = new ArrayList<>();
      int rc = computeProcesses(a, listed);
      ErrorCodes.checkNvml(nvml.deviceGetComputeRunningProcesses.name(), rc);
      List<ProcessUsage> out = new ArrayList<>();
      if (listed.isEmpty()) {
        return out;
      }
      Map<Integer, double[]> util = new HashMap<>();
      if (nvml.deviceGetProcessUtilization.available()) {
        long[] seen = {lastProcessSeen};
        for (double[] x : utilizationSamples(a, seen)) {
          util.put((int) x[0], new double[] {x[1], x[2]});
        }
        lastProcessSeen = seen[0];
      }
      for (long[] p : listed) {
        double[] u = util.getOrDefault((int) p[0], new double[] {Double.NaN, Double.NaN});
        out.add(new ProcessUsage((int) p[0], p[1], u[0], u[1]));
      }
      return out;
    }
  }

  /**
   * The compute processes on the device into {@code out} as (pid, used memory bytes); NVML's code. A list that grew
   * between the count and the fill is asked for again, with room for 8 more.
   */
  private int computeProcesses(Arena a, List<long[]> out) {
    MemorySegment count = a.allocate(ValueLayout.JAVA_INT);
    count.set(ValueLayout.JAVA_INT, 0, 0);
    int rc = Nvml.call(nvml.deviceGetComputeRunningProcesses, device, count, MemorySegment.NULL);
    int n = count.get(ValueLayout.JAVA_INT, 0);
    for (int attempt = 0; attempt < 3 && (rc == Nvml.ERROR_INSUFFICIENT_SIZE || (rc == Nvml.SUCCESS && n > 0));
        attempt++) {
      n += 8;
      count.set(ValueLayout.JAVA_INT, 0, n);
      MemorySegment infos = a.allocate(Nvml.PROCESS_INFO_SIZE * n, 8);
      rc = Nvml.call(nvml.deviceGetComputeRunningProcesses, device, count, infos);
      if (rc == Nvml.SUCCESS) {
        n = count.get(ValueLayout.JAVA_INT, 0);
        for (int i = 0; i < n; i++) {
          long base = i * Nvml.PROCESS_INFO_SIZE;
          out.add(new long[] {Integer.toUnsignedLong(infos.get(ValueLayout.JAVA_INT, base)),
              infos.get(ValueLayout.JAVA_LONG, base + 8)});
        }
        return rc;
      }
      n = count.get(ValueLayout.JAVA_INT, 0);
    }
    return rc;
  }

  /**
   * NVML's per-process utilization samples newer than {@code lastSeen[0]} (µs), as (pid, SM %, memory %); advances
   * {@code lastSeen[0]} to the newest. Empty when there is none ({@code NVML_ERROR_NOT_FOUND}) or the call failed:
   * {@link #utilizationCode} says which.
   */
  private List<double[]> utilizationSamples(Arena a, long[] lastSeen) {
    utilizationCode = Nvml.SUCCESS;
    List<double[]> out = new ArrayList<>();
    MemorySegment count = a.allocate(ValueLayout.JAVA_INT);
    count.set(ValueLayout.JAVA_INT, 0, 0);
    int rc = Nvml.call(nvml.deviceGetProcessUtilization, device, MemorySegment.NULL, count, lastSeen[0]);
    int n = count.get(ValueLayout.JAVA_INT, 0);
    if (rc == Nvml.ERROR_NOT_FOUND || (rc == Nvml.SUCCESS && n <= 0)) {
      return out;
    }
    if (rc != Nvml.ERROR_INSUFFICIENT_SIZE && rc != Nvml.SUCCESS) {
      utilizationCode = rc;
      return out;
    }
    MemorySegment samples = MemorySegment.NULL;
    for (int attempt = 0; attempt < 3 && (attempt == 0 || rc == Nvml.ERROR_INSUFFICIENT_SIZE); attempt++) {
      // room for samples taken between the count and the fill
      n += 8;
      count.set(ValueLayout.JAVA_INT, 0, n);
      samples = a.allocate(Nvml.PROCESS_UTIL_SIZE * n, 8);
      rc = Nvml.call(nvml.deviceGetProcessUtilization, device, samples, count, lastSeen[0]);
      n = count.get(ValueLayout.JAVA_INT, 0);
    }
    if (rc == Nvml.ERROR_NOT_FOUND) {
      return out;
    }
    if (rc != Nvml.SUCCESS) {
      utilizationCode = rc;
      return out;
    }
    for (int i = 0; i < n; i++) {
      long base = i * Nvml.PROCESS_UTIL_SIZE;
      long ts = samples.get(ValueLayout.JAVA_LONG, base + 8);
      lastSeen[0] = Math.max(lastSeen[0], ts);
      out.add(new double[] {Integer.toUnsignedLong(samples.get(ValueLayout.JAVA_INT, base)),
          Integer.toUnsignedLong(samples.get(ValueLayout.JAVA_INT, base + 16)),
          Integer.toUnsignedLong(samples.get(ValueLayout.JAVA_INT, base + 20))});
    }
    return out;
  }

  /**
   * The other processes' fields: OTHER_PROCESSES from the process list, OTHER_SM_UTILIZATION from the utilization
   * samples (NaN, with the reason recorded once, where NVML keeps none; NaN for one read where that call failed).
   */
  private int readTenants(double[] v) {
    Set<Long> job;
    try {
      job = jobPids.get();
    } catch (RuntimeException e) {
      return TENANTS_UNKNOWN;
    }
    if (job == null) {
      return TENANTS_UNKNOWN;
    }
    try (Arena a = Arena.ofConfined()) {
      List<long[]> listed = new ArrayList<>();
      int rc = computeProcesses(a, listed);
      if (rc != Nvml.SUCCESS) {
        return rc;
      }
      Set<Long> others = new HashSet<>();
      for (long[] p : listed) {
        if (!job.contains(p[0])) {
          others.add(p[0]);
        }
      }
      v[StateField.OTHER_PROCESSES.ordinal()] = others.size();
      double sm = Double.NaN;
      if (!nvml.deviceGetProcessUtilization.available()) {
        reasons.putIfAbsent(StateField.OTHER_SM_UTILIZATION, nvml.deviceGetProcessUtilization.name()
            + ": " + ErrorCodes.nvmlName(Nvml.ERROR_FUNCTION_NOT_FOUND));
      } else if (!reasons.containsKey(StateField.OTHER_SM_UTILIZATION)) {
        long[] seen = {tenantsLastSeen};
        List<double[]> samples = utilizationSamples(a, seen);
        if (utilizationCode == Nvml.SUCCESS) {
          tenantsLastSeen = seen[0];
          // per other process: the mean of its samples; summed over them
          Map<Long, double[]> per = new HashMap<>();
          for (double[] x : samples) {
            long pid = (long) x[0];
            if (others.contains(pid)) {
              double[] acc = per.computeIfAbsent(pid, k -> new double[2]);
              acc[0] += x[1];
              acc[1]++;
            }
          }
          sm = 0;
          for (double[] acc : per.values()) {
            sm += acc[0] / acc[1];
          }
        } else if (permanent(utilizationCode)) {
          reasons.putIfAbsent(StateField.OTHER_SM_UTILIZATION, nvml.deviceGetProcessUtilization.name() + ": "
              + ErrorCodes.nvmlName(utilizationCode));
        } else {
          errors++;
        }
      }
      v[StateField.OTHER_SM_UTILIZATION.ordinal()] = sm;
      return Nvml.SUCCESS;
    }
  }

  /** One NVML call (or a fixed few) filling some fields, made at its tier's cadence. */
  private abstract class Reader {
    final NativeFunction function;
    final Tier tier;
    final StateField[] fields;
    boolean unsupported;
    boolean hasRead;
    long lastReadNs;

    Reader(NativeFunction function, Tier tier, StateField... fields) {
      this.function = function;
      this.tier = tier;
      this.fields = fields;
    }

    /** Reads into {@code v}; returns NVML's code. */
    abstract int read(double[] v, long nowNs) throws DeviceException;

    void markUnsupported(String reason) {
      unsupported = true;
      for (StateField f : fields) {
        reasons.putIfAbsent(f, reason);
      }
    }
  }

  private static int invoke(NativeFunction f, MemorySegment a, MemorySegment b) {
    try {
      return (int) f.handle().invoke(a, b);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  private static int invoke(NativeFunction f, MemorySegment a, int b, MemorySegment c) {
    try {
      return (int) f.handle().invoke(a, b, c);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  private static double u32(MemorySegment s, long offset) {
    return Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT, offset));
  }

  private static double u64(MemorySegment s, long offset) {
    long x = s.get(ValueLayout.JAVA_LONG, offset);
    return x >= 0 ? x : x + 0x1p64;
  }

  /** The readers of every field, in the order they are read: each tier's, most frequent first. */
  private void defineReaders() {
    defineEverySampleReaders();
    defineCounterReaders();
    defineSlowReaders();
  }

  /** Utilization, memory, power, clocks, temperature and clock-event reasons: read at every sample. */
  private void defineEverySampleReaders() {
    readers.add(new Reader(nvml.deviceGetUtilizationRates, Tier.EVERY_SAMPLE, StateField.GPU_UTILIZATION,
        StateField.MEMORY_UTILIZATION) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, out);
        if (rc == 0) {
          v[StateField.GPU_UTILIZATION.ordinal()] = u32(out, 0);
          v[StateField.MEMORY_UTILIZATION.ordinal()] = u32(out, 4);
        }
        return rc;
      }
    });
    readers.add(new Reader(nvml.deviceGetMemoryInfo, Tier.EVERY_SAMPLE, StateField.MEMORY_TOTAL,
        StateField.MEMORY_FREE, StateField.MEMORY_USED) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, out);
        if (rc == 0) {
          v[StateField.MEMORY_TOTAL.ordinal()] = u64(out, 0);
          v[StateField.MEMORY_FREE.ordinal()] = u64(out, 8);
          v[StateField.MEMORY_USED.ordinal()] = u64(out, 16);
        }
        return rc;
      }
    });
    readers.add(new Reader(nvml.deviceGetPowerUsage, Tier.EVERY_SAMPLE, StateField.POWER) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, out);
        if (rc == 0) {
          v[StateField.POWER.ordinal()] = u32(out, 0) / 1000.0;
        }
        return rc;
      }
    });
    clock(Nvml.CLOCK_SM, StateField.SM_CLOCK);
    clock(Nvml.CLOCK_MEM, StateField.MEMORY_CLOCK);
    clock(Nvml.CLOCK_GRAPHICS, StateField.GRAPHICS_CLOCK);
    readers.add(new Reader(nvml.deviceGetTemperature, Tier.EVERY_SAMPLE, StateField.TEMPERATURE) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, Nvml.TEMPERATURE_GPU, out);
        if (rc == 0) {
          v[StateField.TEMPERATURE.ordinal()] = u32(out, 0);
        }
        return rc;
      }
    });
    readers.add(new Reader(nvml.deviceGetClockEventReasons, Tier.EVERY_SAMPLE, StateField.CLOCK_EVENT_REASONS) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, out);
        if (rc == 0) {
          v[StateField.CLOCK_EVENT_REASONS.ordinal()] = out.get(ValueLayout.JAVA_LONG, 0);
        }
        return rc;
      }
    });
  }

  /** The counters read as rates (NVML field values) and the other processes on the device. */
  private void defineCounterReaders() {
    readers.add(new Reader(nvml.deviceGetFieldValues, Tier.COUNTERS, RATE_FIELDS) {
      @Override
      int read(double[] v, long now) {
        return readCounters(v, now, this);
      }
    });
    readers.add(new Reader(nvml.deviceGetComputeRunningProcesses, Tier.COUNTERS, StateField.OTHER_PROCESSES,
        StateField.OTHER_SM_UTILIZATION) {
      @Override
      int read(double[] v, long now) {
        return readTenants(v);
      }
    });
  }

  /** The power limit and the memory's health (ECC counts, retired pages, remapped rows): read seldom. */
  private void defineSlowReaders() {
    readers.add(new Reader(nvml.deviceGetEnforcedPowerLimit, Tier.SLOW, StateField.POWER_LIMIT) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, out);
        if (rc == 0) {
          v[StateField.POWER_LIMIT.ordinal()] = u32(out, 0) / 1000.0;
        }
        return rc;
      }
    });
    ecc(StateField.ECC_VOLATILE_CORRECTED, Nvml.MEMORY_ERROR_CORRECTED, Nvml.VOLATILE_ECC);
    ecc(StateField.ECC_VOLATILE_UNCORRECTED, Nvml.MEMORY_ERROR_UNCORRECTED, Nvml.VOLATILE_ECC);
    ecc(StateField.ECC_AGGREGATE_CORRECTED, Nvml.MEMORY_ERROR_CORRECTED, Nvml.AGGREGATE_ECC);
    ecc(StateField.ECC_AGGREGATE_UNCORRECTED, Nvml.MEMORY_ERROR_UNCORRECTED, Nvml.AGGREGATE_ECC);
    readers.add(new Reader(nvml.deviceGetRetiredPages, Tier.SLOW, StateField.RETIRED_PAGES) {
      @Override
      int read(double[] v, long now) {
        double total = 0;
        for (int cause : new int[] {Nvml.PAGE_RETIREMENT_MULTIPLE_SINGLE_BIT, Nvml.PAGE_RETIREMENT_DOUBLE_BIT}) {
          out.set(ValueLayout.JAVA_INT, 0, 0);
          int rc;
          try {
            rc = (int) function.handle().invoke(device, cause, out, MemorySegment.NULL);
          } catch (Throwable t) {
            throw Native.rethrow(t);
          }
          if (rc != 0 && rc != Nvml.ERROR_INSUFFICIENT_SIZE) {
            return rc;
          }
          total += u32(out, 0);
        }
        v[StateField.RETIRED_PAGES.ordinal()] = total;
        return 0;
      }
    });
    readers.add(new Reader(nvml.deviceGetRemappedRows, Tier.SLOW, StateField.REMAPPED_ROWS) {
      @Override
      int read(double[] v, long now) {
        int rc;
        try {
          rc = (int) function.handle().invoke(device, out, out2, out3, out4);
        } catch (Throwable t) {
          throw Native.rethrow(t);
        }
        if (rc == 0) {
          v[StateField.REMAPPED_ROWS.ordinal()] = u32(out, 0) + u32(out2, 0);
        }
        return rc;
      }
    });
  }

  private void clock(int type, StateField field) {
    readers.add(new Reader(nvml.deviceGetClockInfo, Tier.EVERY_SAMPLE, field) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, type, out);
        if (rc == 0) {
          v[field.ordinal()] = u32(out, 0);
        }
        return rc;
      }
    });
  }

  private void ecc(StateField field, int errorType, int counterType) {
    readers.add(new Reader(nvml.deviceGetTotalEccErrors, Tier.SLOW, field) {
      @Override
      int read(double[] v, long now) {
        int rc;
        try {
          rc = (int) function.handle().invoke(device, errorType, counterType, out);
        } catch (Throwable t) {
          throw Native.rethrow(t);
        }
        if (rc == 0) {
          v[field.ordinal()] = u64(out, 0);
        }
        return rc;
      }
    });
  }

  /**
   * The PCIe and NVLink byte counters still asked for, in one nvmlDeviceGetFieldValues call; each field has its own
   * return code, and a field id the device does not support is recorded and left out of later requests.
   */
  private int readCounters(double[] v, long nowNs, Reader reader) {
    for (int k = 0; k < requested; k++) {
      int i = request[k];
      long base = k * Nvml.FIELD_VALUE_SIZE;
      fields.asSlice(base, Nvml.FIELD_VALUE_SIZE).fill((byte) 0);
      fields.set(ValueLayout.JAVA_INT, base + Nvml.FV_FIELD_ID, FIELD_IDS[i]);
      fields.set(ValueLayout.JAVA_INT, base + Nvml.FV_SCOPE_ID, FIELD_SCOPES[i]);
    }
    int rc = invoke(reader.function, device, requested, fields);
    if (rc != 0) {
      return rc;
    }
    int kept = 0;
    for (int k = 0; k < requested; k++) {
      int i = request[k];
      StateField f = RATE_FIELDS[i];
      long base = k * Nvml.FIELD_VALUE_SIZE;
      int frc = fields.get(ValueLayout.JAVA_INT, base + Nvml.FV_RETURN);
      if (frc != 0 && permanent(frc)) {
        reasons.putIfAbsent(f, "nvmlDeviceGetFieldValues(" + FIELD_IDS[i] + "): " + ErrorCodes.nvmlName(frc));
        continue;
      }
      request[kept++] = i;
      if (frc != 0) {
        continue;
      }
      int type = fields.get(ValueLayout.JAVA_INT, base + Nvml.FV_VALUE_TYPE);
      long raw;
      int bits;
      switch (type) {
        case Nvml.VALUE_UNSIGNED_INT, Nvml.VALUE_SIGNED_INT -> {
          raw = Integer.toUnsignedLong(fields.get(ValueLayout.JAVA_INT, base + Nvml.FV_VALUE));
          bits = 32;
        }
        case Nvml.VALUE_UNSIGNED_SHORT -> {
          raw = Short.toUnsignedLong(fields.get(ValueLayout.JAVA_SHORT, base + Nvml.FV_VALUE));
          bits = 16;
        }
        case Nvml.VALUE_DOUBLE -> {
          raw = (long) fields.get(ValueLayout.JAVA_DOUBLE, base + Nvml.FV_VALUE);
          bits = 64;
        }
        default -> {
          raw = fields.get(ValueLayout.JAVA_LONG, base + Nvml.FV_VALUE);
          bits = 64;
        }
      }
      if (rates[i] == null) {
        rates[i] = new CounterRate(bits);
      }
      long ts = fields.get(ValueLayout.JAVA_LONG, base + Nvml.FV_TIMESTAMP);
      long micros = ts > 0 ? ts : nowNs / 1000;
      v[f.ordinal()] = rates[i].update(raw, micros, FIELD_SCALE[i]);
    }
    requested = kept;
    if (requested == 0) {
      reader.unsupported = true;
    }
    return 0;
  }
}
