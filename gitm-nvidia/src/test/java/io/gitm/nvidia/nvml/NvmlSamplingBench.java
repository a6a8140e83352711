package io.gitm.nvidia.nvml;

import io.gitm.api.Ticker;
import io.gitm.nvidia.ffm.ErrorCodes;
import io.gitm.nvidia.ffm.Native;
import io.gitm.nvidia.ffm.NativeFunction;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The NVML sampling benchmark, per device: host time of one {@link NvmlSampler#sample()} after warm-up, with the
 * default intervals (the "full sample": every field present, counter and slow tiers on their cadence), with
 * only the every-sample tier read (counter and slow tiers not due), and with every tier read each sample; then each
 * NVML call the sampler makes, timed on its own, repeated back to back. {@code main(OUT.json [N])} writes median,
 * p10, p90, min, max of each, in microseconds. A cadence stops after N samples or 5 s, a call after min(N, 2000)
 * calls or 2 s, whichever comes first; each says how many it made.
 */
public final class NvmlSamplingBench {
  /** Time limits of one measurement: a cadence's samples, one call's repetitions. */
  private static final long SAMPLE_BUDGET_NS = 5_000_000_000L;
  private static final long CALL_BUDGET_NS = 2_000_000_000L;
  /** An interval no run reaches: the tier is read at the open only. */
  private static final Duration NEVER = Duration.ofDays(36_500);

  private NvmlSamplingBench() {
  }

  static double[] measure(NvmlSampler s, int warmup, int n) {
    return time(s::sample, warmup, n, SAMPLE_BUDGET_NS);
  }

  /** Microseconds per run of {@code r}, {@code n} runs (fewer when they take over {@code budgetNs}) after warm-up. */
  static double[] time(Runnable r, int warmup, int n, long budgetNs) {
    for (int i = 0; i < warmup; i++) {
      r.run();
    }
    double[] us = new double[n];
    long start = System.nanoTime();
    int done = 0;
    while (done < n) {
      long t0 = System.nanoTime();
      r.run();
      long t1 = System.nanoTime();
      us[done++] = (t1 - t0) / 1e3;
      if (t1 - start > budgetNs) {
        break;
      }
    }
    return Arrays.copyOf(us, done);
  }

  /** One NVML call as the sampler makes it, on its own buffers; returns NVML's code. */
  record Call(String name, IntSupplier call) {
  }

  static List<Call> calls(NvmlFunctions f, MemorySegment d, Arena a) {
    MemorySegment o = a.allocate(64, 8);
    MemorySegment o2 = a.allocate(8, 8);
    MemorySegment o3 = a.allocate(8, 8);
    MemorySegment o4 = a.allocate(8, 8);
    MemorySegment fv = a.allocate(Nvml.FIELD_VALUE_SIZE * 4, 8);
    MemorySegment count = a.allocate(ValueLayout.JAVA_INT);
    List<Call> c = new ArrayList<>();
    c.add(new Call("nvmlDeviceGetUtilizationRates", () -> call(f.deviceGetUtilizationRates, d, o)));
    c.add(new Call("nvmlDeviceGetMemoryInfo", () -> call(f.deviceGetMemoryInfo, d, o)));
    c.add(new Call("nvmlDeviceGetPowerUsage", () -> call(f.deviceGetPowerUsage, d, o)));
    c.add(new Call("nvmlDeviceGetClockInfo(SM)", () -> call(f.deviceGetClockInfo, d, Nvml.CLOCK_SM, o)));
    c.add(new Call("nvmlDeviceGetClockInfo(MEM)", () -> call(f.deviceGetClockInfo, d, Nvml.CLOCK_MEM, o)));
    c.add(new Call("nvmlDeviceGetClockInfo(GRAPHICS)",
        () -> call(f.deviceGetClockInfo, d, Nvml.CLOCK_GRAPHICS, o)));
    c.add(new Call("nvmlDeviceGetTemperature(GPU)",
        () -> call(f.deviceGetTemperature, d, Nvml.TEMPERATURE_GPU, o)));
    c.add(new Call(f.deviceGetClockEventReasons.name(), () -> call(f.deviceGetClockEventReasons, d, o)));
    int[][] batches = {{Nvml.FI_DEV_PCIE_COUNT_TX_BYTES}, {Nvml.FI_DEV_PCIE_COUNT_RX_BYTES},
        {Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX}, {Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX},
        {Nvml.FI_DEV_PCIE_COUNT_TX_BYTES, Nvml.FI_DEV_PCIE_COUNT_RX_BYTES},
        {Nvml.FI_DEV_PCIE_COUNT_TX_BYTES, Nvml.FI_DEV_PCIE_COUNT_RX_BYTES, Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
            Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX}};
    for (int[] ids : batches) {
      c.add(new Call("nvmlDeviceGetFieldValues" + Arrays.toString(ids), () -> fieldValues(f, d, fv, ids)));
    }
    c.add(new Call("nvmlDeviceGetEnforcedPowerLimit", () -> call(f.deviceGetEnforcedPowerLimit, d, o)));
    for (int errorType : new int[] {Nvml.MEMORY_ERROR_CORRECTED, Nvml.MEMORY_ERROR_UNCORRECTED}) {
      for (int counter : new int[] {Nvml.VOLATILE_ECC, Nvml.AGGREGATE_ECC}) {
        c.add(new Call("nvmlDeviceGetTotalEccErrors(" + (errorType == 0 ? "CORRECTED" : "UNCORRECTED") + ", "
            + (counter == 0 ? "VOLATILE" : "AGGREGATE") + ")", () -> {
              try {
                return (int) f.deviceGetTotalEccErrors.handle().invoke(d, errorType, counter, o);
              } catch (Throwable t) {
                throw Native.rethrow(t);
              }
            }));
      }
    }
    c.add(new Call("nvmlDeviceGetRetiredPages(MULTIPLE_SINGLE_BIT)", () -> {
      o.set(ValueLayout.JAVA_INT, 0, 0);
      try {
        return (int) f.deviceGetRetiredPages.handle().invoke(d, Nvml.PAGE_RETIREMENT_MULTIPLE_SINGLE_BIT, o,
            MemorySegment.NULL);
      } catch (Throwable t) {
        throw Native.rethrow(t);
      }
    }));
    c.add(new Call("nvmlDeviceGetRemappedRows", () -> {
      try {
        return (int) f.deviceGetRemappedRows.handle().invoke(d, o, o2, o3, o4);
      } catch (Throwable t) {
        throw Native.rethrow(t);
      }
    }));
    c.add(new Call(f.deviceGetComputeRunningProcesses.name() + "(count only)", () -> {
      count.set(ValueLayout.JAVA_INT, 0, 0);
      try {
        return (int) f.deviceGetComputeRunningProcesses.handle().invoke(d, count, MemorySegment.NULL);
      } catch (Throwable t) {
        throw Native.rethrow(t);
      }
    }));
    c.add(new Call("nvmlDeviceGetProcessUtilization(count only)", () -> {
      count.set(ValueLayout.JAVA_INT, 0, 0);
      try {
        return (int) f.deviceGetProcessUtilization.handle().invoke(d, MemorySegment.NULL, count, 0L);
      } catch (Throwable t) {
        throw Native.rethrow(t);
      }
    }));
    // the other-process read (OTHER_PROCESSES, OTHER_SM_UTILIZATION) makes each call twice: count, then fill
    MemorySegment infos = a.allocate(Nvml.PROCESS_INFO_SIZE * 64, 8);
    MemorySegment utils = a.allocate(Nvml.PROCESS_UTIL_SIZE * 64, 8);
    c.add(new Call(f.deviceGetComputeRunningProcesses.name() + "(fill, room for 64)", () -> {
      count.set(ValueLayout.JAVA_INT, 0, 64);
      try {
        return (int) f.deviceGetComputeRunningProcesses.handle().invoke(d, count, infos);
      } catch (Throwable t) {
        throw Native.rethrow(t);
      }
    }));
    c.add(new Call("nvmlDeviceGetProcessUtilization(fill, room for 64, all samples kept)", () -> {
      count.set(ValueLayout.JAVA_INT, 0, 64);
      try {
        return (int) f.deviceGetProcessUtilization.handle().invoke(d, utils, count, 0L);
      } catch (Throwable t) {
        throw Native.rethrow(t);
      }
    }));
    return c;
  }

  private static int call(NativeFunction fn, MemorySegment d, MemorySegment o) {
    try {
      return (int) fn.handle().invoke(d, o);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  private static int call(NativeFunction fn, MemorySegment d, int arg, MemorySegment o) {
    try {
      return (int) fn.handle().invoke(d, arg, o);
    } catch (Throwable t) {
      throw Native.rethrow(t);
    }
  }

  /** One nvmlDeviceGetFieldValues call for {@code ids}; the call's code, else the first field's non-zero code. */
  private static int fieldValues(NvmlFunctions f, MemorySegment d, MemorySegment fv, int[] ids) {
    for (int i = 0; i < ids.length; i++) {
      long base = i * Nvml.FIELD_VALUE_SIZE;
      fv.asSlice(base, Nvml.FIELD_VALUE_SIZE).fill((byte) 0);
      fv.set(ValueLayout.JAVA_INT, base + Nvml.FV_FIELD_ID, ids[i]);
      boolean nvlink = ids[i] == Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX
          || ids[i] == Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
      fv.set(ValueLayout.JAVA_INT, base + Nvml.FV_SCOPE_ID, nvlink ? Nvml.SCOPE_ALL_LINKS : 0);
    }
    int rc = call(f.deviceGetFieldValues, d, ids.length, fv);
    for (int i = 0; rc == 0 && i < ids.length; i++) {
      rc = fv.get(ValueLayout.JAVA_INT, i * Nvml.FIELD_VALUE_SIZE + Nvml.FV_RETURN);
    }
    return rc;
  }

  /** A JSON object of the statistics of {@code us} (sorted here), led by {@code head} (e.g. {@code "k": v, }). */
  static String stats(String head, double[] us) {
    Arrays.sort(us);
    int n = us.length;
    if (n == 0) {
      return "{" + head + "\"n\": 0}";
    }
    return String.format(Locale.ROOT, "{%s\"n\": %d, \"median_us\": %.2f, \"p10_us\": %.2f, \"p90_us\": %.2f, "
        + "\"min_us\": %.2f, \"max_us\": %.2f}", head, n, us[n / 2], us[n / 10], us[n * 9 / 10], us[0], us[n - 1]);
  }

  private static String cadence(String name, NvmlSampler.Intervals iv) {
    return String.format(Locale.ROOT, "\"cadence\": %s, \"counters_every_s\": %s, \"slow_every_s\": %s, ",
        NvmlJson.quote(name), seconds(iv.counters()), seconds(iv.slow()));
  }

  private static String seconds(Duration d) {
    return d.getSeconds() > 1_000_000 ? "null" : String.format(Locale.ROOT, "%.3f", d.toNanos() / 1e9);
  }

  public static void main(String[] args) throws Exception {
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
    int perCall = Math.min(n, 2000);
    NvmlSampler.Intervals fastOnly = new NvmlSampler.Intervals(NEVER, NEVER);
    NvmlSampler.Intervals everyTier = new NvmlSampler.Intervals(Duration.ZERO, Duration.ZERO);
    int count = Nvml.deviceCount();
    StringBuilder b = new StringBuilder("{\n  \"what\": \"host microseconds per NvmlSampler.sample() (top level: "
        + "default cadence, every field present, counter and slow tiers read on their intervals), per sample at "
        + "other cadences (cadences), and per NVML call made alone, back to back (calls)\",\n  \"devices\": [\n");
    for (int d = 0; d < count; d++) {
      NvmlSampler s = NvmlSampler.open(d, Ticker.system());
      String head = String.format(Locale.ROOT, "\"index\": %d, \"name\": %s, %s", s.index(),
          NvmlJson.quote(s.name()), cadence("default", s.intervals()));
      String line = stats(head, measure(s, 500, n));
      System.out.println("full sample, default cadence: " + line);
      List<String> cadences = new ArrayList<>();
      for (var e : List.of(Map.entry("every-sample tier only", fastOnly),
          Map.entry("counters and other processes each sample", new NvmlSampler.Intervals(Duration.ZERO, NEVER)),
          Map.entry("every tier each sample", everyTier))) {
        NvmlSampler other = NvmlSampler.open(d, Ticker.system(), e.getValue());
        String st = stats(cadence(e.getKey(), e.getValue()), measure(other, 200, n));
        System.out.println("sample, " + e.getKey() + ": " + st);
        cadences.add("      " + st);
      }
      List<String> callLines = new ArrayList<>();
      try (Arena a = Arena.ofConfined()) {
        MemorySegment handle = Nvml.handleByIndex(d);
        for (Call c : calls(Nvml.LIB, handle, a)) {
          String rc;
          try {
            rc = ErrorCodes.nvmlName(c.call().getAsInt());
          } catch (RuntimeException ex) {
            callLines.add("      {\"call\": " + NvmlJson.quote(c.name()) + ", \"error\": "
                + NvmlJson.quote(String.valueOf(ex.getMessage())) + "}");
            continue;
          }
          String st = stats("\"call\": " + NvmlJson.quote(c.name()) + ", \"rc\": " + NvmlJson.quote(rc) + ", ",
              time(c.call()::getAsInt, 20, perCall, CALL_BUDGET_NS));
          System.out.println("call: " + st);
          callLines.add("      " + st);
        }
      }
      b.append("    ").append(line, 0, line.length() - 1)
          .append(", \"supported\": ").append(NvmlJson.quote(s.supported().toString()))
          .append(", \"unsupported\": ").append(NvmlJson.quote(s.unsupportedReasons().toString()))
          .append(",\n     \"cadences\": [\n").append(String.join(",\n", cadences)).append("\n     ],")
          .append("\n     \"calls\": [\n").append(String.join(",\n", callLines)).append("\n     ]}")
          .append(d + 1 < count ? ",\n" : "\n");
    }
    b.append("  ]\n}\n");
    if (args.length > 0) {
      Files.writeString(Path.of(args[0]), b.toString());
    }
  }
}
