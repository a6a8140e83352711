package io.gitm.planner;

import io.gitm.api.Ticker;
import io.gitm.device.Blas;
import io.gitm.device.Device;
import io.gitm.device.DeviceInfo;
import io.gitm.device.DeviceMemory;
import io.gitm.device.Event;
import io.gitm.device.HardwareSpec;
import io.gitm.device.HostMemory;
import io.gitm.device.HostMemoryKind;
import io.gitm.device.Kernel;
import io.gitm.device.LaunchConfig;
import io.gitm.device.MathMode;
import io.gitm.device.MemInfo;
import io.gitm.device.Module;
import io.gitm.device.Stream;
import io.gitm.stats.Sample;
import io.gitm.trace.Precision;
import io.gitm.trace.StateField;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code gitm calibrate}: measures one device's ceilings through the {@link Device} API only, so it runs the same on a
 * real and a simulated device. Every figure is the median of {@code repeats} timed runs after {@code warmups}
 * untimed ones, on random data: device-memory copy bandwidth (a copy kernel, event-timed), FP32/TF32/BF16 GEMM rates
 * (square cuBLAS-style GEMMs, event-timed), host-to-device and device-to-host bandwidth from pinned and pageable
 * memory (synchronous copies, host-timed), launch latency (host time of many empty launches), and event resolution
 * (the smallest step between distinct event-timed intervals).
 */
public final class Calibrator {

  /**
   * What to measure with.
   *
   * @param copyBytes bytes per buffer of the device copy (two buffers)
   * @param gemmN size of the square GEMMs
   * @param transferBytes bytes per host-device copy
   * @param launches empty launches per latency measurement
   */
  public record Options(long copyBytes, int gemmN, long transferBytes, int launches, int repeats, int warmups,
      long seed) {
    public Options {
      if (copyBytes < 16 || gemmN < 1 || transferBytes < 1 || launches < 1 || repeats < 1 || warmups < 0) {
        throw new IllegalArgumentException("calibration options must be positive: " + copyBytes + " B copy, n="
            + gemmN + ", " + transferBytes + " B transfer, " + launches + " launches, " + repeats + " repeats, "
            + warmups + " warm-ups");
      }
    }

    /** Sizes that reach the ceilings of a datacenter GPU (H100/H200 class). */
    public static Options defaults() {
      return new Options(1L << 30, 8192, 256L << 20, 2000, 9, 2, 1);
    }

    /** Mid sizes with fewer repeats: within a few percent of the ceilings on an H100/H200 in a few seconds. */
    public static Options brief() {
      return new Options(256L << 20, 4096, 64L << 20, 500, 5, 1, 1);
    }

    /**
     * For the simulated device, which times from its model but really computes each GEMM and copies each byte on the
     * host: full-size copies, GEMMs of 512 (the model's overheads then cost a few percent of the rate).
     */
    public static Options simulated() {
      return new Options(256L << 20, 512, 64L << 20, 500, 3, 1, 1);
    }

    /**
     * Tiny sizes, for tests and the simulated device (which times from its model, but really computes each GEMM and
     * copies each byte on the host); far below the ceilings of a real GPU.
     */
    public static Options quick() {
      return new Options(1L << 20, 64, 1L << 20, 50, 3, 1, 1);
    }
  }

  /** One measured figure: median, extremes and count of its repeats, in {@code unit}. */
  public record Stat(String unit, double median, double min, double max, int n) {
    static Stat of(String unit, double[] xs) {
      return new Stat(unit, Sample.median(xs), Arrays.stream(xs).min().orElseThrow(),
          Arrays.stream(xs).max().orElseThrow(), xs.length);
    }

    /** (max - min) / median. */
    public double relativeSpread() {
      return median == 0 ? 0 : (max - min) / median;
    }
  }

  /** The spec plus the figures behind it, with their spreads; written as JSON. */
  public record Calibration(HardwareSpec spec, String deviceKind, String measuredAt, Options options,
      Map<String, Stat> measurements) {
  }

  /**
   * Copies queued between the two events of one bandwidth timing: the host cost of the first launch falls inside the
   * interval, the later ones overlap the copies before them.
   */
  static final int COPIES_PER_TIMING = 4;

  private final Device device;
  private final Options options;
  private final Ticker clock;
  private final java.time.Clock wallClock;

  public Calibrator(Device device, Options options) {
    this(device, options, java.time.Clock.systemUTC());
  }

  /** With the clock that dates the calibration ({@code measuredAt}). */
  public Calibrator(Device device, Options options, java.time.Clock wallClock) {
    this.device = device;
    this.options = options;
    this.clock = device.clock();
    this.wallClock = wallClock;
  }

  /** Measures everything and returns the spec. */
  public Calibration run() {
    Map<String, Stat> m = new LinkedHashMap<>();
    DeviceInfo info = device.info();
    MemInfo mem = device.memInfo();
    long budget = mem.freeBytes() / 8;
    long copyBytes = Math.max(16, Math.min(options.copyBytes(), budget) / 16 * 16);
    long transfer = Math.max(1, Math.min(options.transferBytes(), budget));
    int n = (int) Math.max(1, Math.min(options.gemmN(), Math.sqrt(budget / 12.0)));
    double[] smClock = {0};

    try (Module module = device.load(CalibrationKernels.MODULE)) {
      m.put("device_copy_bandwidth", copyBandwidth(module.kernel(CalibrationKernels.COPY), copyBytes));
      Kernel empty = module.kernel(CalibrationKernels.EMPTY);
      m.put("launch_latency", launchLatency(empty));
      m.put("event_resolution", eventResolution(empty));
    }
    Map<Precision, Double> flops = new EnumMap<>(Precision.class);
    for (MathMode mode : MathMode.values()) {
      Stat s = gemm(mode, n, smClock);
      m.put("gemm_" + mode.name().toLowerCase(), s);
      flops.put(precision(mode), s.median());
    }
    m.put("h2d_pinned", transfer(HostMemoryKind.PINNED, true, transfer));
    m.put("d2h_pinned", transfer(HostMemoryKind.PINNED, false, transfer));
    m.put("h2d_pageable", transfer(HostMemoryKind.PAGEABLE, true, transfer));
    m.put("d2h_pageable", transfer(HostMemoryKind.PAGEABLE, false, transfer));

    Instant now = wallClock.instant();
    HardwareSpec spec = new HardwareSpec(info.name(), info.uuid(), info.driverVersion(), info.multiprocessors(),
        smClock[0], info.totalMemoryBytes(), info.l2CacheBytes(), m.get("device_copy_bandwidth").median(), flops,
        m.get("h2d_pinned").median(), m.get("d2h_pinned").median(), m.get("h2d_pageable").median(),
        m.get("d2h_pageable").median(), m.get("launch_latency").median(), m.get("event_resolution").median(),
        "calibrate " + now + " on " + info.name() + " (" + info.kind().label() + ")");
    return new Calibration(spec, info.kind().label(), now.toString(), options, m);
  }

  static Precision precision(MathMode mode) {
    return switch (mode) {
      case DEFAULT -> Precision.FP32;
      case TF32 -> Precision.TF32;
      case BF16 -> Precision.BF16;
    };
  }

  private void randomFill(DeviceMemory dst, long bytes, long seed) {
    long chunk = Math.min(bytes, 64L << 20);
    try (HostMemory h = device.allocHost(chunk, HostMemoryKind.PINNED)) {
      SplittableRandom r = new SplittableRandom(seed);
      ByteBuffer b = h.buffer();
      for (long done = 0; done < bytes; done += chunk) {
        long len = Math.min(chunk, bytes - done);
        b.clear();
        for (int i = 0; i + 4 <= len; i += 4) {
          b.putFloat(i, (float) (r.nextDouble() * 2 - 1));
        }
        device.copy(dst, done, h, 0, len);
      }
    }
  }

  private Stat copyBandwidth(Kernel copy, long bytes) {
    try (DeviceMemory src = device.malloc(bytes); DeviceMemory dst = device.malloc(bytes);
        Event start = device.createEvent(true); Event end = device.createEvent(true)) {
      randomFill(src, bytes, options.seed());
      long n4 = bytes / 16;
      int blocks = (int) Math.min(Math.max(1, (n4 + 255) / 256), 65535L * 8);
      LaunchConfig cfg = LaunchConfig.cover(Math.min(n4, (long) blocks * 256), 256);
      Stream s = device.defaultStream();
      double[] xs = new double[options.repeats()];
      for (int i = -options.warmups(); i < options.repeats(); i++) {
        start.record(s);
        for (int k = 0; k < COPIES_PER_TIMING; k++) {
          device.launch(copy, cfg, s, dst, src, n4);
        }
        end.record(s);
        end.synchronize();
        if (i >= 0) {
          xs[i] = COPIES_PER_TIMING * 2.0 * 16 * n4 / (end.elapsedMillisSince(start) / 1e3);
        }
      }
      return Stat.of("B/s", xs);
    }
  }

  private Stat launchLatency(Kernel empty) {
    Stream s = device.defaultStream();
    LaunchConfig one = LaunchConfig.cover(1, 32);
    double[] xs = new double[options.repeats()];
    for (int i = -options.warmups(); i < options.repeats(); i++) {
      long t0 = clock.nanos();
      for (int k = 0; k < options.launches(); k++) {
        device.launch(empty, one, s, 0);
      }
      long t1 = clock.nanos();
      device.synchronize();
      if (i >= 0) {
        xs[i] = (double) (t1 - t0) / options.launches();
      }
    }
    return Stat.of("ns", xs);
  }

  /**
   * Times many tiny intervals (an empty kernel between two events) and takes the smallest step between distinct
   * measured values as the resolution; the median and extremes are of those steps.
   */
  private Stat eventResolution(Kernel empty) {
    Stream s = device.defaultStream();
    LaunchConfig one = LaunchConfig.cover(1, 32);
    int samples = Math.max(50, options.launches() / 4);
    TreeSet<Long> distinct = new TreeSet<>();
    try (Event a = device.createEvent(true); Event b = device.createEvent(true)) {
      for (int i = 0; i < samples; i++) {
        a.record(s);
        device.launch(empty, one, s, 0);
        b.record(s);
        b.synchronize();
        distinct.add(Math.round(b.elapsedMillisSince(a) * 1e6));
      }
    }
    List<Double> steps = new ArrayList<>();
    Long prev = null;
    for (long v : distinct) {
      if (prev != null && v > prev) {
        steps.add((double) (v - prev));
      }
      prev = v;
    }
    if (steps.isEmpty()) {
      steps.add((double) Math.max(1, distinct.first()));
    }
    double min = steps.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    double[] xs = steps.stream().mapToDouble(Double::doubleValue).toArray();
    Stat all = Stat.of("ns", xs);
    return new Stat("ns", min, min, all.max(), all.n());
  }

  private Stat gemm(MathMode mode, int n, double[] smClock) {
    Blas blas = device.blas();
    MathMode before = blas.mathMode();
    long bytes = 4L * n * n;
    try (DeviceMemory a = device.malloc(bytes); DeviceMemory b = device.malloc(bytes);
        DeviceMemory c = device.malloc(bytes); Event start = device.createEvent(true);
        Event end = device.createEvent(true)) {
      randomFill(a, bytes, options.seed() + 1);
      randomFill(b, bytes, options.seed() + 2);
      blas.setMathMode(mode);
      Stream s = device.defaultStream();
      double[] xs = new double[options.repeats()];
      for (int i = -options.warmups(); i < options.repeats(); i++) {
        start.record(s);
        blas.sgemm(s, false, false, n, n, n, 1f, a, n, b, n, 0f, c, n);
        end.record(s);
        if (i >= 0) {
          double clk = device.sampler().sample().get(StateField.SM_CLOCK);
          if (!Double.isNaN(clk)) {
            smClock[0] = Math.max(smClock[0], clk);
          }
        }
        end.synchronize();
        if (i >= 0) {
          xs[i] = 2.0 * n * n * (double) n / (end.elapsedMillisSince(start) / 1e3);
        }
      }
      return Stat.of("flop/s", xs);
    } finally {
      blas.setMathMode(before);
    }
  }

  private Stat transfer(HostMemoryKind kind, boolean toDevice, long bytes) {
    try (HostMemory h = device.allocHost(bytes, kind); DeviceMemory d = device.malloc(bytes)) {
      ByteBuffer buf = h.buffer();
      SplittableRandom r = new SplittableRandom(options.seed() + 3);
      for (int i = 0; i + 8 <= bytes; i += 8) {
        buf.putLong(i, r.nextLong());
      }
      double[] xs = new double[options.repeats()];
      for (int i = -options.warmups(); i < options.repeats(); i++) {
        long t0 = clock.nanos();
        if (toDevice) {
          device.copy(d, 0, h, 0, bytes);
        } else {
          device.copy(h, 0, d, 0, bytes);
        }
        long t1 = clock.nanos();
        if (i >= 0) {
          xs[i] = bytes / ((t1 - t0) / 1e9);
        }
      }
      return Stat.of("B/s", xs);
    }
  }

  /** JSON of a calibration (Jackson, indented). */
  public static String toJson(Calibration c) {
    return JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build().writeValueAsString(c);
  }

  /** Writes {@code c} to {@code path} atomically. */
  public static void write(Calibration c, Path path) {
    try {
      io.gitm.store.AtomicFiles.writeString(path, toJson(c));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write calibration to " + path + ": " + e.getMessage(), e);
    }
  }

  /** Calibrates {@code device} and writes the result to {@code out}: the entry point of {@code gitm calibrate}. */
  public static Calibration calibrate(Device device, Options options, Path out) {
    Calibration c = new Calibrator(device, options).run();
    if (out != null) {
      write(c, out);
    }
    return c;
  }


}
