package io.gitm.export;

import io.gitm.api.Ticker;
import io.gitm.telemetry.TelemetryLoop;
import io.gitm.trace.StateSample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the exporter knows at this moment: the latest state sample of each device it serves, the run's progress when
 * it watches a run, and its own cost. Samples come in on the telemetry loop's thread ({@link #accept}); scrapes and
 * OTLP collections read it from theirs ({@link #collect}). A sample is one reference swap; all formatting happens at
 * collection time, so the cost of sampling fast does not grow with the number of readers.
 */
final class Board {
  /** Every family the exporter can emit, with no points: what the OTLP side registers its instruments for. */
  static final List<Family> CATALOGUE;

  static final Family SAMPLES = def("gitm_exporter_sampling_rounds_total", Family.Type.COUNTER,
      "Sampling rounds of the exporter's telemetry loop (each reads every device once).", "1");
  static final Family SAMPLER_ERRORS = def("gitm_exporter_sampler_errors_total", Family.Type.COUNTER,
      "State samples that failed (the loop goes on).", "1");
  static final Family MISSED = def("gitm_exporter_missed_periods_total", Family.Type.COUNTER,
      "Sampling periods skipped because the loop fell behind.", "1");
  static final Family RATE = def("gitm_exporter_sample_rate_hz", Family.Type.GAUGE,
      "The telemetry loop's sampling rate (in Hz).", "Hz");
  static final Family SCRAPES = def("gitm_exporter_scrapes_total", Family.Type.COUNTER,
      "Scrapes of /metrics served.", "1");
  static final Family ERRORS = def("gitm_exporter_errors_total", Family.Type.COUNTER,
      "Failures inside the exporter (a run's progress it could not record); the run goes on.", "1");
  static final Family OTLP_EXPORTS = def("gitm_exporter_otlp_exports_total", Family.Type.COUNTER,
      "OTLP exports sent (metric collections and span batches).", "1");
  static final Family OTLP_FAILURES = def("gitm_exporter_otlp_export_failures_total", Family.Type.COUNTER,
      "OTLP exports the collector did not accept or that could not be sent.", "1");
  static final Family CPU = def("process_cpu_seconds_total", Family.Type.COUNTER,
      "Total user and system CPU time of the exporting process (in s).", "s");
  static final Family RSS = def("process_resident_memory_bytes", Family.Type.GAUGE,
      "Resident memory of the exporting process (in bytes).", "By");
  static final Family HEAP = def("jvm_memory_used_bytes", Family.Type.GAUGE,
      "Java heap in use (in bytes).", "By");

  static {
    List<Family> all = new ArrayList<>();
    for (StateMetric m : StateMetric.ALL) {
      all.add(def(m.name(), m.type(), m.help(), m.otelUnit()));
    }
    all.addAll(RunProgress.CATALOGUE);
    all.addAll(List.of(SAMPLES, SAMPLER_ERRORS, MISSED, RATE, SCRAPES, ERRORS, OTLP_EXPORTS, OTLP_FAILURES, CPU, RSS,
        HEAP));
    CATALOGUE = List.copyOf(all);
  }

  private record Device(DeviceLabels labels, List<String> values, StateSample latest) {
    Device with(StateSample s) {
      return new Device(labels, values, s);
    }
  }

  private final Map<Integer, Device> devices = new ConcurrentSkipListMap<>();
  private final AtomicLong scrapes = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final Ticker ticker;
  private volatile TelemetryLoop loop;
  private volatile double hz;
  private volatile RunProgress run;
  private volatile Otlp otlp;

  Board(Ticker ticker) {
    this.ticker = ticker;
  }

  void addDevice(DeviceLabels d) {
    devices.put(d.gpu(), new Device(d, d.values(), null));
  }

  void removeDevice(int gpu) {
    devices.remove(gpu);
  }

  /** Keeps {@code s} as its device's latest state; a sample of a device not added is ignored. */
  void accept(StateSample s) {
    devices.computeIfPresent(s.device(), (k, d) -> d.with(s));
  }

  void watch(TelemetryLoop l, double rateHz) {
    this.loop = l;
    this.hz = rateHz;
  }

  void watch(RunProgress p) {
    this.run = p;
  }

  void watch(Otlp o) {
    this.otlp = o;
  }

  void scraped() {
    scrapes.incrementAndGet();
  }

  void failed() {
    errors.incrementAndGet();
  }

  long errors() {
    return errors.get();
  }

  /** The families that have at least one point now, state first, then the run, then the exporter's own. */
  List<Family> collect() {
    List<Family> out = new ArrayList<>(StateMetric.ALL.size() + 20);
    for (StateMetric m : StateMetric.ALL) {
      List<Family.Point> points = new ArrayList<>(devices.size());
      for (Device d : devices.values()) {
        StateSample s = d.latest();
        if (s != null && s.has(m.field())) {
          points.add(new Family.Point(DeviceLabels.NAMES, d.values(), s.get(m.field()) * m.scale()));
        }
      }
      if (!points.isEmpty()) {
        out.add(new Family(m.name(), m.type(), m.help(), m.otelUnit(), points));
      }
    }
    RunProgress p = run;
    if (p != null) {
      out.addAll(p.families(ticker.nanos()));
    }
    TelemetryLoop l = loop;
    if (l != null) {
      out.add(with(SAMPLES, l.rounds()));
      out.add(with(SAMPLER_ERRORS, l.samplerErrors()));
      out.add(with(MISSED, l.missedPeriods()));
      out.add(with(RATE, hz));
    }
    out.add(with(SCRAPES, scrapes.get()));
    out.add(with(ERRORS, errors.get()));
    Otlp o = otlp;
    if (o != null) {
      out.add(with(OTLP_EXPORTS, o.exports()));
      out.add(with(OTLP_FAILURES, o.failures()));
    }
    ProcessHandle.current().info().totalCpuDuration().ifPresent(d -> out.add(with(CPU, d.toNanos() / 1e9)));
    long rss = residentBytes();
    if (rss >= 0) {
      out.add(with(RSS, rss));
    }
    Runtime rt = Runtime.getRuntime();
    out.add(new Family(HEAP.name(), HEAP.type(), HEAP.help(), HEAP.otelUnit(),
        List.of(Family.Point.of(rt.totalMemory() - rt.freeMemory(), "area", "heap"))));
    return out;
  }

  private static final Path STATUS = Path.of("/proc/self/status");

  /** VmRSS of /proc/self/status, or -1 where there is none (not Linux). */
  static long residentBytes() {
    try {
      for (String line : Files.readAllLines(STATUS)) {
        if (line.startsWith("VmRSS:")) {
          String[] f = line.substring(6).trim().split("\\s+");
          return Long.parseLong(f[0]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  static Family def(String name, Family.Type type, String help, String unit) {
    return new Family(name, type, help, unit, List.of());
  }

  static Family with(Family def, double value) {
    return new Family(def.name(), def.type(), def.help(), def.otelUnit(), List.of(Family.Point.of(value)));
  }
}
