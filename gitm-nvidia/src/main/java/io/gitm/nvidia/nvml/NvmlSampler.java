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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads one device's state through NVML. Each group of fields is read by one NVML call; a call the device or driver
 * does not support (not supported, no permission, function missing) marks its fields unsupported once, with the
 * reason ({@link #unsupportedReasons}), and is not made again. Fields that change slowly (power limit, ECC counters,
 * retired pages, remapped rows) are re-read every {@code slowEvery}-th sample and carried in between. PCIe and NVLink
 * throughput are rates of NVML's cumulative byte counters, differenced with wrap-around ({@link CounterRate}); the
 * first sample has them as NaN. Thread-safe: samples are taken one at a time.
 */
public final class NvmlSampler implements StateSampler {
  private static final int DEFAULT_SLOW_EVERY = 10;

  private final int index;
  private final MemorySegment device;
  private final Ticker ticker;
  private final int slowEvery;
  private final Arena arena = Arena.ofShared();
  private final MemorySegment out;
  private final MemorySegment out2;
  private final MemorySegment out3;
  private final MemorySegment out4;
  private final MemorySegment fields;
  private final List<Reader> readers = new ArrayList<>();
  private final Map<StateField, String> unsupported = Collections.synchronizedMap(new EnumMap<>(StateField.class));
  private final double[] carried = new double[StateField.values().length];
  private final CounterRate[] rates = new CounterRate[4];
  private final StateField[] rateFields = {StateField.PCIE_TX, StateField.PCIE_RX, StateField.NVLINK_TX,
      StateField.NVLINK_RX};
  private final int[] fieldIds = {Nvml.FI_DEV_PCIE_COUNT_TX_BYTES, Nvml.FI_DEV_PCIE_COUNT_RX_BYTES,
      Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX, Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX};
  private final double[] fieldScale = {1, 1, 1024, 1024};
  private long samples;
  private long errors;
  private long lastProcessSeen;

  private NvmlSampler(int index, MemorySegment device, Ticker ticker, int slowEvery, String unavailable) {
    this.index = index;
    this.device = device;
    this.ticker = ticker;
    this.slowEvery = slowEvery;
    this.out = arena.allocate(64, 8);
    this.out2 = arena.allocate(8, 8);
    this.out3 = arena.allocate(8, 8);
    this.out4 = arena.allocate(8, 8);
    this.fields = arena.allocate(Nvml.FIELD_VALUE_SIZE * fieldIds.length, 8);
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

  /** A sampler of device {@code index} in NVML's order; fails when NVML or the device is not there. */
  public static NvmlSampler open(int index, Ticker ticker) {
    return new NvmlSampler(index, Nvml.handleByIndex(index), ticker, DEFAULT_SLOW_EVERY, null);
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
      return new NvmlSampler(fallbackIndex, h, ticker, DEFAULT_SLOW_EVERY, null);
    } catch (DeviceException e) {
      return new NvmlSampler(fallbackIndex, MemorySegment.NULL, ticker, DEFAULT_SLOW_EVERY,
          "NVML not usable: " + e.getMessage());
    }
  }

  /** One sampler per device NVML sees. */
  public static List<NvmlSampler> all(Ticker ticker) {
    int n = Nvml.deviceCount();
    List<NvmlSampler> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(open(i, ticker));
    }
    return out;
  }

  /** NVML's index of this device. */
  public int index() {
    return index;
  }

  public String name() {
    return Nvml.text(Nvml.deviceGetName, device, Nvml.NAME_BUFFER);
  }

  public String uuid() {
    return Nvml.text(Nvml.deviceGetUUID, device, Nvml.UUID_BUFFER);
  }

  /** Why each unsupported field is unsupported (the NVML function and its code), recorded once. */
  public Map<StateField, String> unsupportedReasons() {
    synchronized (unsupported) {
      return Map.copyOf(unsupported);
    }
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
    boolean slowRound = samples % slowEvery == 0;
    for (Reader r : readers) {
      if (r.unsupported) {
        continue;
      }
      if (r.slow && !slowRound) {
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
        if (r.slow) {
          for (StateField f : r.fields) {
            carried[f.ordinal()] = v[f.ordinal()];
          }
        }
      } else if (permanent(rc)) {
        r.markUnsupported(r.function.name() + ": " + ErrorCodes.nvmlName(rc));
      } else {
        errors++;
      }
    }
    samples++;
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
      MemorySegment count = a.allocate(ValueLayout.JAVA_INT);
      count.set(ValueLayout.JAVA_INT, 0, 0);
      int rc = Nvml.call(Nvml.deviceGetComputeRunningProcesses, device, count, MemorySegment.NULL);
      int n = count.get(ValueLayout.JAVA_INT, 0);
      List<ProcessUsage> out = new ArrayList<>();
      if (rc == Nvml.ERROR_INSUFFICIENT_SIZE || (rc == Nvml.SUCCESS && n > 0)) {
        n += 8;
        count.set(ValueLayout.JAVA_INT, 0, n);
        MemorySegment infos = a.allocate(Nvml.PROCESS_INFO_SIZE * n, 8);
        rc = Nvml.call(Nvml.deviceGetComputeRunningProcesses, device, count, infos);
        ErrorCodes.checkNvml(Nvml.deviceGetComputeRunningProcesses.name(), rc);
        n = count.get(ValueLayout.JAVA_INT, 0);
        Map<Integer, double[]> util = processUtilization(a);
        for (int i = 0; i < n; i++) {
          long base = i * Nvml.PROCESS_INFO_SIZE;
          int pid = infos.get(ValueLayout.JAVA_INT, base);
          long mem = infos.get(ValueLayout.JAVA_LONG, base + 8);
          double[] u = util.getOrDefault(pid, new double[] {Double.NaN, Double.NaN});
          out.add(new ProcessUsage(pid, mem, u[0], u[1]));
        }
      } else {
        ErrorCodes.checkNvml(Nvml.deviceGetComputeRunningProcesses.name(), rc);
      }
      return out;
    }
  }

  private Map<Integer, double[]> processUtilization(Arena a) {
    Map<Integer, double[]> out = new java.util.HashMap<>();
    if (!Nvml.deviceGetProcessUtilization.available()) {
      return out;
    }
    MemorySegment count = a.allocate(ValueLayout.JAVA_INT);
    int rc = Nvml.call(Nvml.deviceGetProcessUtilization, device, MemorySegment.NULL, count, lastProcessSeen);
    int n = count.get(ValueLayout.JAVA_INT, 0);
    if ((rc != Nvml.ERROR_INSUFFICIENT_SIZE && rc != Nvml.SUCCESS) || n <= 0) {
      return out;
    }
    MemorySegment samples = a.allocate(Nvml.PROCESS_UTIL_SIZE * n, 8);
    rc = Nvml.call(Nvml.deviceGetProcessUtilization, device, samples, count, lastProcessSeen);
    if (rc != Nvml.SUCCESS) {
      return out;
    }
    n = count.get(ValueLayout.JAVA_INT, 0);
    for (int i = 0; i < n; i++) {
      long base = i * Nvml.PROCESS_UTIL_SIZE;
      int pid = samples.get(ValueLayout.JAVA_INT, base);
      long ts = samples.get(ValueLayout.JAVA_LONG, base + 8);
      lastProcessSeen = Math.max(lastProcessSeen, ts);
      out.put(pid, new double[] {Integer.toUnsignedLong(samples.get(ValueLayout.JAVA_INT, base + 16)),
          Integer.toUnsignedLong(samples.get(ValueLayout.JAVA_INT, base + 20))});
    }
    return out;
  }

  /** One NVML call filling some fields. */
  private abstract class Reader {
    final NativeFunction function;
    final List<StateField> fields;
    final boolean slow;
    boolean unsupported;

    Reader(NativeFunction function, boolean slow, StateField... fields) {
      this.function = function;
      this.slow = slow;
      this.fields = List.of(fields);
    }

    /** Reads into {@code v}; returns NVML's code. */
    abstract int read(double[] v, long nowNs) throws DeviceException;

    void markUnsupported(String reason) {
      unsupported = true;
      for (StateField f : fields) {
        unsupported(f, reason);
      }
    }
  }

  private void unsupported(StateField f, String reason) {
    unsupported.putIfAbsent(f, reason);
  }

  private static int invoke(NativeFunction f, Object a, Object b) {
    try {
      return (int) f.handle().invoke((MemorySegment) a, (MemorySegment) b);
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

  private void defineReaders() {
    readers.add(new Reader(Nvml.deviceGetUtilizationRates, false, StateField.GPU_UTILIZATION,
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
    readers.add(new Reader(Nvml.deviceGetMemoryInfo, false, StateField.MEMORY_TOTAL, StateField.MEMORY_FREE,
        StateField.MEMORY_USED) {
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
    readers.add(new Reader(Nvml.deviceGetPowerUsage, false, StateField.POWER) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, out);
        if (rc == 0) {
          v[StateField.POWER.ordinal()] = u32(out, 0) / 1000.0;
        }
        return rc;
      }
    });
    readers.add(new Reader(Nvml.deviceGetEnforcedPowerLimit, true, StateField.POWER_LIMIT) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, out);
        if (rc == 0) {
          v[StateField.POWER_LIMIT.ordinal()] = u32(out, 0) / 1000.0;
        }
        return rc;
      }
    });
    clock(Nvml.CLOCK_SM, StateField.SM_CLOCK);
    clock(Nvml.CLOCK_MEM, StateField.MEMORY_CLOCK);
    clock(Nvml.CLOCK_GRAPHICS, StateField.GRAPHICS_CLOCK);
    readers.add(new Reader(Nvml.deviceGetTemperature, false, StateField.TEMPERATURE) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, Nvml.TEMPERATURE_GPU, out);
        if (rc == 0) {
          v[StateField.TEMPERATURE.ordinal()] = u32(out, 0);
        }
        return rc;
      }
    });
    readers.add(new Reader(Nvml.deviceGetClockEventReasons, false, StateField.CLOCK_EVENT_REASONS) {
      @Override
      int read(double[] v, long now) {
        int rc = invoke(function, device, out);
        if (rc == 0) {
          v[StateField.CLOCK_EVENT_REASONS.ordinal()] = out.get(ValueLayout.JAVA_LONG, 0);
        }
        return rc;
      }
    });
    readers.add(new Reader(Nvml.deviceGetFieldValues, false, rateFields) {
      @Override
      int read(double[] v, long now) {
        return readFieldValues(v, now, this);
      }
    });
    ecc(StateField.ECC_VOLATILE_CORRECTED, Nvml.MEMORY_ERROR_CORRECTED, Nvml.VOLATILE_ECC);
    ecc(StateField.ECC_VOLATILE_UNCORRECTED, Nvml.MEMORY_ERROR_UNCORRECTED, Nvml.VOLATILE_ECC);
    ecc(StateField.ECC_AGGREGATE_CORRECTED, Nvml.MEMORY_ERROR_CORRECTED, Nvml.AGGREGATE_ECC);
    ecc(StateField.ECC_AGGREGATE_UNCORRECTED, Nvml.MEMORY_ERROR_UNCORRECTED, Nvml.AGGREGATE_ECC);
    readers.add(new Reader(Nvml.deviceGetRetiredPages, true, StateField.RETIRED_PAGES) {
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
    readers.add(new Reader(Nvml.deviceGetRemappedRows, true, StateField.REMAPPED_ROWS) {
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
    readers.add(new Reader(Nvml.deviceGetClockInfo, false, field) {
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
    readers.add(new Reader(Nvml.deviceGetTotalEccErrors, true, field) {
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

  /** PCIe and NVLink byte counters in one nvmlDeviceGetFieldValues call; each field has its own return code. */
  private int readFieldValues(double[] v, long nowNs, Reader reader) {
    int live = 0;
    for (int i = 0; i < fieldIds.length; i++) {
      long base = i * Nvml.FIELD_VALUE_SIZE;
      fields.asSlice(base, Nvml.FIELD_VALUE_SIZE).fill((byte) 0);
      fields.set(ValueLayout.JAVA_INT, base + Nvml.FV_FIELD_ID, fieldIds[i]);
      fields.set(ValueLayout.JAVA_INT, base + Nvml.FV_SCOPE_ID, i >= 2 ? Nvml.SCOPE_ALL_LINKS : 0);
    }
    int rc = invoke(reader.function, device, fieldIds.length, fields);
    if (rc != 0) {
      return rc;
    }
    for (int i = 0; i < fieldIds.length; i++) {
      StateField f = rateFields[i];
      if (unsupportedReasons().containsKey(f)) {
        continue;
      }
      long base = i * Nvml.FIELD_VALUE_SIZE;
      int frc = fields.get(ValueLayout.JAVA_INT, base + Nvml.FV_RETURN);
      if (frc != 0) {
        if (permanent(frc)) {
          unsupported(f, "nvmlDeviceGetFieldValues(" + fieldIds[i] + "): " + ErrorCodes.nvmlName(frc));
        }
        continue;
      }
      live++;
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
      v[f.ordinal()] = rates[i].update(raw, micros, fieldScale[i]);
    }
    if (live == 0 && reader.fields.stream().allMatch(unsupportedReasons()::containsKey)) {
      reader.unsupported = true;
    }
    return 0;
  }
}
