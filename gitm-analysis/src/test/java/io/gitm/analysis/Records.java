package io.gitm.analysis;

import io.gitm.device.HardwareSpec;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.Precision;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.WorkRecord;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Hand-made records and ceilings with round numbers, for the analysis tests. */
public final class Records {
  private Records() {}

  /**
   * 100 multiprocessors at 1000 MHz; 1e9 B/s of device memory (1 byte per ns); 1e13 FP32 and 1e14 BF16 flop/s; links
   * at 1e10 B/s pinned, 2.5e9 B/s pageable; 5 µs launches.
   */
  public static final HardwareSpec HW = new HardwareSpec("Test GPU", "GPU-test", "1.0", 100, 1000, 80_000_000_000L,
      50L << 20, 1e9, Map.of(Precision.FP32, 1e13, Precision.BF16, 1e14, Precision.INT32, 1e13), 1e10, 1e10, 2.5e9,
      2.5e9, 5_000, 32, "test ceilings");

  public static final TraceMeta META = new TraceMeta("test", ClockDomain.HOST_MONOTONIC,
      List.of(new TraceDevice(0, "Test GPU", "GPU-test", DeviceKind.REAL)), Map.of());

  public static KernelRecord kernel(String name, int stream, long corr, long start, long end, int blocks) {
    return new KernelRecord(name, 0, stream, corr, start, end, Dim3.of(blocks), Dim3.of(256), 32, 0, 0);
  }

  public static WorkRecord work(String name, int stream, long corr, long at, double flops, Precision p, long bytes) {
    return new WorkRecord(name, 0, stream, corr, at, flops, p, bytes / 2, bytes - bytes / 2, 0, 0);
  }

  public static WorkRecord chain(String name, int stream, long corr, long at, long offChip, long onChip) {
    return new WorkRecord(name, 0, stream, corr, at, 0, Precision.INT32, 0, 0, offChip, onChip);
  }

  public static TrafficRecord traffic(long corr, long at, long bytes) {
    return new TrafficRecord(0, corr, at, bytes / 2, bytes - bytes / 2, "test");
  }

  public static ApiCallRecord api(ApiKind kind, String name, long corr, long start, long end) {
    return new ApiCallRecord(kind, name, 1, corr, start, end);
  }

  public static CopyRecord copy(CopyKind kind, long bytes, boolean pageable, int stream, long corr, long start,
      long end) {
    MemoryKind host = pageable ? MemoryKind.PAGEABLE : MemoryKind.PINNED;
    return kind == CopyKind.HTOD ? new CopyRecord(kind, bytes, host, MemoryKind.DEVICE, 0, stream, corr, start, end)
        : new CopyRecord(kind, bytes, MemoryKind.DEVICE, host, 0, stream, corr, start, end);
  }

  public static SyncRecord sync(SyncKind kind, int stream, long corr, long start, long end) {
    return new SyncRecord(kind, 0, stream, corr, start, end);
  }

  /** A state sample at {@code t} with the SM clock and the clock-event reason bits (and a plausible rest). */
  public static StateSample sample(int device, long t, double clockMHz, int reasons) {
    Map<StateField, Double> m = new EnumMap<>(StateField.class);
    m.put(StateField.SM_CLOCK, clockMHz);
    m.put(StateField.CLOCK_EVENT_REASONS, (double) reasons);
    m.put(StateField.POWER, 300.0);
    m.put(StateField.TEMPERATURE, 50.0);
    return StateSample.of(device, t, m);
  }
}
