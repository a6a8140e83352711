package io.gitm.tracer;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadKind;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TrafficRecord;
import io.gitm.trace.WorkRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Traces and records for the tracer's tests. */
final class Samples {
  private Samples() {}

  static final TraceMeta META = new TraceMeta("test", ClockDomain.HOST_MONOTONIC,
      List.of(new TraceDevice(0, "NVIDIA H200", "GPU-1234", DeviceKind.REAL)), Map.of("driver", "580.159.04"));

  static final TraceMeta TWO_DEVICES = new TraceMeta("sim", ClockDomain.SIMULATED,
      List.of(new TraceDevice(0, "NVIDIA H200", "GPU-1234", DeviceKind.REAL),
          new TraceDevice(1, "sim-h200", "", DeviceKind.SIMULATED)), Map.of());

  static KernelRecord kernel(String name, int device, int stream, long corr, long start, long end) {
    return new KernelRecord(name, device, stream, corr, start, end, new Dim3(128, 2, 1), new Dim3(256, 1, 1), 32,
        1024, 4096);
  }

  /** One record of every type, incl. a state sample with only some fields read and one with none. */
  static List<TraceRecord> everyType() {
    List<TraceRecord> r = new ArrayList<>(everyTypeOfVersion2());
    r.add(new HostOpRecord("aten::mm", 42, 3587, 1_200, 4_800));
    r.add(new CollectiveRecord("allreduce", "Float", 4_194_304, 4_194_304, 2, "0", "default_pg", "[0, 1]", -1, 42,
        3589, 0, 1_100, 4_900));
    r.add(new CollectiveRecord("_allgather_base", "BFloat16", 1024, 2048, 2, "1", "", "", 0, -1, 3590, 7, 6_000,
        26_000));
    r.add(new CollectiveRecord("", "", -1, -1, -1, "", "", "", -1, 0, 0, 0, 0, 0));
    return r;
  }

  /** Every record type of format version 2. */
  static List<TraceRecord> everyTypeOfVersion2() {
    List<TraceRecord> r = new ArrayList<>(everyTypeOfVersion1());
    r.add(new WorkRecord("void gemm<float, 128>(float const*, float*)", 0, 7, 7, 1_500, 2.5e9,
        io.gitm.trace.Precision.TF32, 3L << 20, 1L << 20, 12, 3));
    r.add(new TrafficRecord(0, 7, 26_000, 4L << 20, 1L << 20, "sim"));
    return r;
  }

  /** Every record type of format version 1. */
  static List<TraceRecord> everyTypeOfVersion1() {
    Map<StateField, Double> fields = new EnumMap<>(StateField.class);
    fields.put(StateField.SM_CLOCK, 1980.0);
    fields.put(StateField.POWER, 151.25);
    fields.put(StateField.CLOCK_EVENT_REASONS, 1.0);
    fields.put(StateField.REMAPPED_ROWS, 0.0);
    List<TraceRecord> r = new ArrayList<>();
    r.add(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 42, 7, 1_000, 5_000));
    r.add(kernel("void gemm<float, 128>(float const*, float*)", 0, 7, 7, 6_000, 26_000));
    r.add(new CopyRecord(CopyKind.HTOD, 1 << 20, MemoryKind.PAGEABLE, MemoryKind.DEVICE, 0, 13, 8, 30_000, 90_000));
    r.add(new MemsetRecord(4096, 0xff, MemoryKind.DEVICE, 0, 13, 9, 91_000, 92_000));
    r.add(new SyncRecord(SyncKind.STREAM, 0, 13, 10, 92_000, 95_500));
    r.add(new SyncRecord(SyncKind.CONTEXT, 0, -1, 11, 96_000, 97_000));
    r.add(new OverheadRecord(OverheadKind.BUFFER_FLUSH, 43, 98_000, 99_000));
    r.add(StateSample.of(0, 100_000, fields));
    r.add(new StateSample(0, 101_000, null));
    r.add(new MarkerRecord("ProfilerStep#1", 42, 500, 110_000));
    r.add(new MarkerRecord("instant", 42, 120_000, 120_000));
    r.add(new ApiCallRecord(ApiKind.OTHER, "", 42, 0, 121_000, 121_500));
    r.add(new CopyRecord(CopyKind.UNKNOWN, 0, MemoryKind.UNKNOWN, MemoryKind.ARRAY, 0, 0, 0, -5, -5));
    return r;
  }

  static void write(Path file, TraceMeta meta, List<? extends TraceRecord> records) throws IOException {
    try (TraceWriter w = TraceWriter.create(file, meta)) {
      for (TraceRecord r : records) {
        w.write(r);
      }
    }
  }

  static void write(Path file, TraceMeta meta, int blockTarget, List<? extends TraceRecord> records)
      throws IOException {
    try (TraceWriter w = TraceWriter.create(file, meta, blockTarget)) {
      for (TraceRecord r : records) {
        w.write(r);
      }
    }
  }

  static List<TraceRecord> readAll(Path file) throws IOException {
    List<TraceRecord> out = new ArrayList<>();
    try (TraceReader r = TraceReader.open(file)) {
      r.read(out::add);
    }
    return out;
  }

  static TraceMeta readMeta(Path file) throws IOException {
    try (TraceReader r = TraceReader.open(file)) {
      return r.meta();
    }
  }

  static List<TraceRecord> kernels(int n) {
    String[] names = {"ampere_sgemm_128x64_nn", "void at::native::vectorized_elementwise_kernel<4>",
        "volta_fp16_s884gemm", "softmax_warp_forward", "nccl:all_reduce"};
    List<TraceRecord> r = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long start = 1_000L * i;
      r.add(kernel(names[i % names.length], i % 2, 7 + i % 3, i + 1, start, start + 500 + i % 7));
    }
    return r;
  }
}
