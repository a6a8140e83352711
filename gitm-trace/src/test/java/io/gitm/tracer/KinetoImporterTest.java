package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.OverheadKind;
import io.gitm.trace.OverheadRecord;
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KinetoImporterTest {
  private static final long BASE = 1764457200000000000L;

  @TempDir
  Path dir;

  private Path fixture(String name) throws IOException {
    Path p = dir.resolve(name);
    try (InputStream in = KinetoImporterTest.class.getResourceAsStream("/tracer/" + name)) {
      assertThat(in).as("test resource " + name).isNotNull();
      Files.copy(in, p);
    }
    return p;
  }

  private static <T> List<T> ofType(List<TraceRecord> rs, Class<T> type) {
    return rs.stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Test
  void aKinetoTraceWithBaseTimeImportsEveryGpuAndCudaEventWithExactEpochNanoseconds() throws Exception {
    Path out = dir.resolve("h200.gtrace");
    KinetoImporter.Result result = KinetoImporter.importTrace(fixture("kineto-h200.json"), out);

    assertThat(result.meta().clock()).isEqualTo(ClockDomain.UNIX_EPOCH);
    assertThat(result.meta().source()).isEqualTo("kineto");
    assertThat(result.meta().devices()).containsExactly(new TraceDevice(0, "NVIDIA H200", "", DeviceKind.REAL));
    assertThat(result.meta().attributes()).containsEntry("kineto.device.0.numSms", "132")
        .containsEntry("kineto.baseTimeNanoseconds", Long.toString(BASE))
        .containsEntry("kineto.cuda_runtime_version", "13000");
    assertThat(result.records()).containsExactlyInAnyOrderEntriesOf(Map.of("marker", 1L, "api", 6L, "kernel", 2L,
        "copy", 1L, "memset", 1L, "sync", 1L, "overhead", 1L, "hostop", 1L));
    assertThat(result.ignored()).containsExactlyInAnyOrderEntriesOf(Map.of("ph s", 1L, "ph f", 1L, "ph M", 3L,
        "ph i", 2L));
    assertThat(result.missing()).isEmpty();
    assertThat(result.events()).isEqualTo(21);

    List<TraceRecord> rs = Samples.readAll(out);
    assertThat(rs).hasSize(14);
    KernelRecord gemm = ofType(rs, KernelRecord.class).getFirst();
    assertThat(gemm).isEqualTo(new KernelRecord(
        "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel"
            + "__5x_cublas",
        0, 7, 1201, BASE + 1_140_512, BASE + 1_140_512 + 1_245_337, new Dim3(32, 32, 1), new Dim3(128, 1, 1), 168,
        133120, 0));
    ApiCallRecord launch = ofType(rs, ApiCallRecord.class).getFirst();
    assertThat(launch).isEqualTo(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 48211, 1201, BASE + 1_130_117,
        BASE + 1_135_321));
    assertThat(ofType(rs, ApiCallRecord.class)).extracting(ApiCallRecord::name, ApiCallRecord::kind).containsExactly(
        org.assertj.core.groups.Tuple.tuple("cudaLaunchKernel", ApiKind.LAUNCH),
        org.assertj.core.groups.Tuple.tuple("cudaMemcpyAsync", ApiKind.COPY),
        org.assertj.core.groups.Tuple.tuple("cudaMemsetAsync", ApiKind.MEMSET),
        org.assertj.core.groups.Tuple.tuple("cudaStreamSynchronize", ApiKind.SYNC),
        org.assertj.core.groups.Tuple.tuple("cuLaunchKernel", ApiKind.LAUNCH),
        org.assertj.core.groups.Tuple.tuple("cudaDeviceSynchronize", ApiKind.SYNC));
    assertThat(ofType(rs, CopyRecord.class)).containsExactly(new CopyRecord(CopyKind.HTOD, 67108864,
        MemoryKind.PAGEABLE, MemoryKind.DEVICE, 0, 7, 1205, BASE + 1_152_880, BASE + 1_454_382));
    assertThat(ofType(rs, MemsetRecord.class)).containsExactly(new MemsetRecord(4096, 0, MemoryKind.DEVICE, 0, 7,
        1210, BASE + 2_386_000, BASE + 2_387_216));
    assertThat(ofType(rs, SyncRecord.class)).containsExactly(new SyncRecord(SyncKind.STREAM, 0, 7, 1213,
        BASE + 1_480_911, BASE + 2_387_913));
    assertThat(ofType(rs, MarkerRecord.class)).containsExactly(new MarkerRecord("ProfilerStep#2", 48211,
        BASE + 1_103_250, BASE + 2_715_368));
    assertThat(ofType(rs, OverheadRecord.class)).containsExactly(new OverheadRecord(OverheadKind.BUFFER_FLUSH, 0,
        BASE + 2_500_000, BASE + 2_512_750));
    KernelRecord triton = ofType(rs, KernelRecord.class).get(1);
    assertThat(triton.stream()).isEqualTo(13);
    assertThat(triton.correlationId()).isEqualTo(1220);
  }

  @Test
  void anOlderTraceWithAbsoluteMicrosecondsAndStringTidsImportsAsEpochTime() throws Exception {
    Path out = dir.resolve("legacy.gtrace");
    KinetoImporter.Result result = KinetoImporter.importTrace(fixture("kineto-legacy-epoch-us.json"), out);

    assertThat(result.meta().clock()).isEqualTo(ClockDomain.UNIX_EPOCH);
    assertThat(result.meta().devices()).extracting(TraceDevice::name).containsExactly("Tesla V100-SXM2-16GB");
    assertThat(result.records()).containsExactlyInAnyOrderEntriesOf(Map.of("kernel", 1L, "api", 2L, "copy", 1L,
        "memset", 1L));
    assertThat(result.ignored()).containsExactly(Map.entry("cat Operator", 1L));
    List<TraceRecord> rs = Samples.readAll(out);
    KernelRecord k = ofType(rs, KernelRecord.class).getFirst();
    assertThat(k.startNs()).isEqualTo(1637062398455171L * 1000);
    assertThat(k.durationNs()).isEqualTo(152_000);
    assertThat(k.stream()).isEqualTo(7);
    assertThat(k.grid()).isEqualTo(new Dim3(2, 16, 1));
    assertThat(ofType(rs, ApiCallRecord.class)).extracting(ApiCallRecord::threadId).containsOnly(3125L);
    assertThat(ofType(rs, CopyRecord.class).getFirst()).extracting(CopyRecord::kind, CopyRecord::srcKind,
        CopyRecord::dstKind, CopyRecord::bytes).containsExactly(CopyKind.DTOH, MemoryKind.DEVICE, MemoryKind.PAGEABLE,
        4000L);
  }

  @Test
  void pytorchOneVariantsImportTheirStepsCorrelationsAndDevicesAsTheNewerSpellingsDo() throws Exception {
    // PyTorch 1.8's Kineto: a bare array, integer µs, every host range an Operator (the steps among them), string
    // tids ("stream 7"), "external id"; other writers spell the correlation "correlation id"; a dur may be missing
    Path in = dir.resolve("torch18.json");
    Files.writeString(in, """
        [
          {"ph": "X", "cat": "Operator", "name": "ProfilerStep#4", "pid": 3125, "tid": 3125,
           "ts": 1637062398455000, "dur": 1000, "args": {"External id": 1}},
          {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 3125, "tid": 3125,
           "ts": 1637062398455100, "dur": 80, "args": {"External id": 2}},
          {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 3125, "tid": "3125",
           "ts": 1637062398455150, "dur": 9, "args": {"cbid": 211, "correlation id": 1987, "external id": 2}},
          {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": "stream 7",
           "ts": 1637062398455171.25, "args": {"device": 0, "stream": 7, "correlation id": 1987}},
          {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": "stream 7",
           "ts": 1637062398455300, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 1990, "bytes": 1024}}
        ]
        """);
    KinetoImporter.Result r = KinetoImporter.importTrace(in, dir.resolve("torch18.gtrace"));
    assertThat(r.records()).containsExactlyInAnyOrderEntriesOf(Map.of("marker", 1L, "api", 1L, "kernel", 1L,
        "copy", 1L));
    assertThat(r.ignored()).containsExactly(Map.entry("cat Operator", 1L));
    assertThat(r.missing()).containsEntry("Kernel: dur", 1L);
    List<TraceRecord> rs = Samples.readAll(dir.resolve("torch18.gtrace"));
    long us = 1_000L;
    assertThat(ofType(rs, MarkerRecord.class)).containsExactly(new MarkerRecord("ProfilerStep#4", 3125,
        1637062398455000L * us, 1637062398456000L * us));
    assertThat(ofType(rs, ApiCallRecord.class).getFirst().correlationId()).isEqualTo(1987);
    KernelRecord k = ofType(rs, KernelRecord.class).getFirst();
    assertThat(k.correlationId()).isEqualTo(1987);
    assertThat(k.stream()).isEqualTo(7);
    assertThat(k.startNs()).isEqualTo(1637062398455171L * us + 250);
    assertThat(k.durationNs()).isZero();
    assertThat(ofType(rs, CopyRecord.class).getFirst()).extracting(CopyRecord::kind, CopyRecord::srcKind,
        CopyRecord::bytes).containsExactly(CopyKind.HTOD, MemoryKind.PINNED, 1024L);
  }

  @Test
  void nanosecondDisplayAndABaseTimeGivenAfterTheEventsKeepNanosecondPrecision() throws Exception {
    Path out = dir.resolve("ns.gtrace");
    KinetoImporter.Result result = KinetoImporter.importTrace(fixture("kineto-ns-base-at-end.json"), out);

    long base = 1700000000123456789L;
    assertThat(result.meta().clock()).isEqualTo(ClockDomain.UNIX_EPOCH);
    assertThat(result.meta().attributes()).containsEntry("kineto.displayTimeUnit", "ns");
    List<TraceRecord> rs = Samples.readAll(out);
    ApiCallRecord api = ofType(rs, ApiCallRecord.class).getFirst();
    assertThat(api.startNs()).isEqualTo(base + 1);
    assertThat(api.endNs()).isEqualTo(base + 4_000);
    KernelRecord k = ofType(rs, KernelRecord.class).getFirst();
    assertThat(k.startNs()).isEqualTo(base + 12_345);
    assertThat(k.durationNs()).isEqualTo(1_007);
  }

  @Test
  void aToolThatWritesNanosecondsCanBeImportedWithTheNanosecondUnit() throws Exception {
    Path in = dir.resolve("ns-ticks.json");
    Files.writeString(in, """
        {"traceEvents": [
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 3, "ts": 1500, "dur": 250,
           "args": {"device": 0, "stream": 3, "correlation": 1, "grid": [1,1,1], "block": [1,1,1],
                    "registers per thread": 1, "shared memory": 0}}
        ]}
        """);
    KinetoImporter.importTrace(in, dir.resolve("a.gtrace"), KinetoImporter.TimeUnit.NANOSECONDS);
    KinetoImporter.importTrace(in, dir.resolve("b.gtrace"), KinetoImporter.TimeUnit.MICROSECONDS);
    TraceRecord a = Samples.readAll(dir.resolve("a.gtrace")).getFirst();
    TraceRecord b = Samples.readAll(dir.resolve("b.gtrace")).getFirst();
    assertThat(a.startNs()).isEqualTo(1500);
    assertThat(a.durationNs()).isEqualTo(250);
    assertThat(b.startNs()).isEqualTo(1_500_000);
  }

  @Test
  void epochNanosecondTimestampsAreRecognizedBecauseTheyCannotBeMicroseconds() throws Exception {
    Path in = dir.resolve("epoch-ns.json");
    Files.writeString(in, """
        {"displayTimeUnit": "ns", "traceEvents": [
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9,
           "ts": 1764457200000001234, "dur": 3500, "args": {"correlation": 4}},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1764457200000009000, "dur": 1001,
           "args": {"device": 0, "stream": 7, "correlation": 4, "grid": [1, 1, 1], "block": [64, 1, 1],
                    "registers per thread": 16, "shared memory": 0}}
        ]}
        """);
    KinetoImporter.Result r = KinetoImporter.importTrace(in, dir.resolve("epoch-ns.gtrace"));
    assertThat(r.meta().clock()).isEqualTo(ClockDomain.UNIX_EPOCH);
    assertThat(r.meta().attributes().get("kineto.timeUnit")).startsWith("ns (detected");
    List<TraceRecord> rs = Samples.readAll(dir.resolve("epoch-ns.gtrace"));
    assertThat(rs.get(0).startNs()).isEqualTo(1764457200000001234L);
    assertThat(rs.get(0).durationNs()).isEqualTo(3500);
    assertThat(rs.get(1).startNs()).isEqualTo(1764457200000009000L);
    assertThat(rs.get(1).durationNs()).isEqualTo(1001);

    assertThatThrownBy(() -> KinetoImporter.importTrace(in, dir.resolve("forced-us.gtrace"),
        KinetoImporter.TimeUnit.MICROSECONDS)).isInstanceOf(KinetoFormatException.class)
        .hasMessage("line 2, column 3: trace event \"ts\" is out of range: 1764457200000001234");
  }

  @Test
  void severalDevicesAndEventsOutOfOrderImportWithTheirOwnDevicesAndStreams() throws Exception {
    Path out = dir.resolve("two.gtrace");
    KinetoImporter.Result result = KinetoImporter.importTrace(fixture("kineto-two-gpus-out-of-order.json"), out);

    assertThat(result.meta().devices()).extracting(TraceDevice::index).containsExactly(0, 1);
    assertThat(result.meta().attributes()).containsEntry("kineto.distributedInfo.world_size", "2");
    List<TraceRecord> rs = Samples.readAll(out);
    assertThat(ofType(rs, KernelRecord.class)).extracting(KernelRecord::device, KernelRecord::stream,
        KernelRecord::correlationId).containsExactly(org.assertj.core.groups.Tuple.tuple(1, 7, 31L),
        org.assertj.core.groups.Tuple.tuple(0, 7, 30L));
    CopyRecord peer = ofType(rs, CopyRecord.class).getFirst();
    assertThat(peer.kind()).isEqualTo(CopyKind.PTOP);
    assertThat(peer.device()).isEqualTo(1);
    assertThat(peer.stream()).isEqualTo(21);
    assertThat(result.missing()).isEmpty();

    TraceSummary s = TraceSummary.of(out, 5);
    assertThat(s.firstNs()).isEqualTo(1764000000000000000L + 40_000);
    assertThat(s.lastNs()).isEqualTo(1764000000000000000L + 600_500);
    assertThat(s.streamsByDevice()).containsOnlyKeys(0, 1);
    assertThat(s.streamsByDevice().get(1)).containsExactly(7, 21);
  }

  @Test
  void missingFieldsGetTheirUnknownValuesAndAreCounted() throws Exception {
    Path out = dir.resolve("missing.gtrace");
    KinetoImporter.Result result = KinetoImporter.importTrace(fixture("kineto-missing-fields.json"), out);

    assertThat(result.meta().clock()).isEqualTo(ClockDomain.HOST_MONOTONIC);
    assertThat(result.meta().devices()).extracting(TraceDevice::index).containsExactly(0, 1);
    assertThat(result.skipped()).containsExactly(Map.entry("kernel: no ts", 1L));
    assertThat(result.missing()).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        Map.entry("kernel: args.correlation", 3L), Map.entry("kernel: args.grid", 3L),
        Map.entry("kernel: args.block", 3L), Map.entry("kernel: args.registers per thread", 3L),
        Map.entry("kernel: args.shared memory", 3L), Map.entry("kernel: args.device", 1L),
        Map.entry("kernel: args.stream", 1L), Map.entry("kernel: dur", 1L), Map.entry("kernel: name", 1L),
        Map.entry("gpu_memcpy: copy kind in name", 1L), Map.entry("gpu_memcpy: memory kinds in name", 1L),
        Map.entry("gpu_memcpy: args.bytes", 1L), Map.entry("cuda_runtime: tid", 1L),
        Map.entry("cuda_runtime: args.correlation", 1L)));

    List<TraceRecord> rs = Samples.readAll(out);
    List<KernelRecord> ks = ofType(rs, KernelRecord.class);
    assertThat(ks).extracting(KernelRecord::name).containsExactly("kernel_without_launch_details",
        "kernel_without_args", "kernel_without_dur", "(unnamed kernel)");
    KernelRecord noArgs = ks.get(1);
    assertThat(noArgs.device()).as("device from pid").isEqualTo(1);
    assertThat(noArgs.stream()).as("stream from tid").isEqualTo(9);
    assertThat(noArgs.registersPerThread()).isEqualTo(-1);
    assertThat(noArgs.staticSharedBytes()).isEqualTo(-1);
    assertThat(noArgs.dynamicSharedBytes()).isEqualTo(-1);
    assertThat(noArgs.startNs()).isEqualTo(20_500);
    assertThat(noArgs.durationNs()).isEqualTo(2_250);
    assertThat(ks.get(2).durationNs()).isZero();
    assertThat(ofType(rs, CopyRecord.class).getFirst()).extracting(CopyRecord::kind, CopyRecord::bytes)
        .containsExactly(CopyKind.UNKNOWN, 0L);
    assertThat(ofType(rs, ApiCallRecord.class).getFirst()).extracting(ApiCallRecord::kind,
        ApiCallRecord::correlationId).containsExactly(ApiKind.ALLOC, 0L);
  }

  @Test
  void aGzippedTraceImportsLikeThePlainOne() throws Exception {
    Path plain = fixture("kineto-h200.json");
    Path gz = dir.resolve("kineto-h200.pt.trace.json.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(plain, o);
    }
    KinetoImporter.importTrace(plain, dir.resolve("a.gtrace"));
    KinetoImporter.importTrace(gz, dir.resolve("b.gtrace"));
    assertThat(Samples.readAll(dir.resolve("b.gtrace"))).isEqualTo(Samples.readAll(dir.resolve("a.gtrace")));
  }

  @Test
  void aTruncatedTraceIsAnErrorNamingLineAndColumnAndNothingIsWritten() throws Exception {
    byte[] whole = Files.readAllBytes(fixture("kineto-h200.json"));
    Path out = dir.resolve("out.gtrace");
    for (int cut : new int[] {30, whole.length / 4, whole.length / 2, whole.length - 40, whole.length - 2}) {
      Path in = dir.resolve("cut-" + cut + ".json");
      Files.write(in, Arrays.copyOf(whole, cut));
      assertThatThrownBy(() -> KinetoImporter.importTrace(in, out)).as("cut at %d", cut)
          .isInstanceOf(KinetoFormatException.class)
          .hasMessageMatching("line \\d+, column \\d+: the file is truncated: .*")
          .satisfies(e -> assertThat(((KinetoFormatException) e).line()).isPositive());
      assertThat(out).doesNotExist();
      assertThat(TmpFiles.of(dir, "out.gtrace")).isEmpty();
    }
  }

  @Test
  void aTruncatedGzipIsAnErrorAndNothingIsWritten() throws Exception {
    Path gz = dir.resolve("t.json.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(fixture("kineto-h200.json"), o);
    }
    byte[] bytes = Files.readAllBytes(gz);
    Files.write(gz, Arrays.copyOf(bytes, bytes.length / 2));
    Path out = dir.resolve("out.gtrace");
    assertThatThrownBy(() -> KinetoImporter.importTrace(gz, out)).isInstanceOf(IOException.class)
        .hasMessageContaining("truncated");
    assertThat(out).doesNotExist();
    assertThat(TmpFiles.of(dir, "out.gtrace")).isEmpty();
  }

  @Test
  void aMalformedEventIsAnErrorAtItsLineAndAnEarlierImportIsKept() throws Exception {
    Path out = dir.resolve("keep.gtrace");
    KinetoImporter.importTrace(fixture("kineto-legacy-epoch-us.json"), out);
    byte[] before = Files.readAllBytes(out);
    Path in = dir.resolve("bad.json");
    Files.writeString(in, """
        {"traceEvents": [
          {"ph": "X", "cat": "kernel", "name": "ok", "pid": 0, "tid": 7, "ts": 1, "dur": 1},
          {"ph": "X", "cat": "kernel", "name": "bad", "pid": 0, "tid": 7,
           "ts": "soon", "dur": 1}
        ]}
        """);
    assertThatThrownBy(() -> KinetoImporter.importTrace(in, out)).isInstanceOf(KinetoFormatException.class)
        .hasMessage("line 3, column 3: trace event \"ts\" is not a number");
    assertThat(Files.readAllBytes(out)).isEqualTo(before);
    assertThat(TmpFiles.of(dir, "keep.gtrace")).isEmpty();
  }

  @Test
  void anIdBeyondThirtyTwoBitsIsImportedAsNoneAndCountedNotSilentlyCut() throws Exception {
    Path in = dir.resolve("wide.json");
    Path out = dir.resolve("wide.gtrace");
    Files.writeString(in, """
        {"traceEvents": [
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
           "args": {"device": 99999999999, "stream": 7, "correlation": 1, "registers per thread": 4294967296,
                    "shared memory": -1, "grid": [4294967297, 1, 1], "block": [1, 2, 3, 4, 5]}}
        ]}
        """);
    KinetoImporter.Result r = KinetoImporter.importTrace(in, out);
    KernelRecord k = ofType(Samples.readAll(out), KernelRecord.class).getFirst();
    assertThat(k.device()).isEqualTo(-1);
    assertThat(k.stream()).isEqualTo(7);
    assertThat(k.registersPerThread()).isEqualTo(-1);
    assertThat(k.staticSharedBytes()).isEqualTo(-1);
    assertThat(k.dynamicSharedBytes()).isEqualTo(-1);
    assertThat(k.grid()).isEqualTo(Dim3.ONE);
    assertThat(r.mapped()).containsExactlyInAnyOrderEntriesOf(Map.of("kernel: args.device = 99999999999", 1L,
        "kernel: args.registers per thread = 4294967296", 1L, "kernel: args.shared memory = -1", 1L));
    assertThat(k.block()).isEqualTo(Dim3.ONE);
    assertThat(r.missing()).containsEntry("kernel: args.grid", 1L).containsEntry("kernel: args.block", 1L);
    assertThat(r.meta().devices()).isEmpty();
    assertThat(r.notes()).contains("1 kernel event(s) have args.device = 99999999999 (it does not fit a 32-bit id):"
        + " imported as -1 (none)", "1 kernel event(s) have args.shared memory = -1 (-1: none): imported as -1"
        + " (unknown)");
  }

  @Test
  void aContextSyncWhoseStreamIsUint32MinusOneImportsWithStreamNoneAndANote() throws Exception {
    // as Kineto writes a context synchronization: CUPTI's uint32 -1 as args.stream, int32 -1 as tid
    Path in = dir.resolve("sync.json");
    Path out = dir.resolve("sync.gtrace");
    Files.writeString(in, """
        {"traceEvents": [
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": -1, "ts": 2, "dur": 5,
           "args": {"cuda_sync_kind": "Context Sync", "stream": 4294967295, "correlation": 2, "device": 0,
                    "context": 1}},
          {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 8, "dur": 1,
           "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": -1, "stream": -1, "correlation": 3,
                    "device": 0}}
        ]}
        """);
    KinetoImporter.Result r = KinetoImporter.importTrace(in, out);
    assertThat(ofType(Samples.readAll(out), SyncRecord.class)).containsExactly(
        new SyncRecord(SyncKind.CONTEXT, 0, -1, 2, 2_000, 7_000), new SyncRecord(SyncKind.EVENT, 0, -1, 3, 8_000,
            9_000));
    assertThat(r.mapped()).containsExactlyInAnyOrderEntriesOf(Map.of("cuda_sync: args.stream = 4294967295", 1L,
        "cuda_sync: args.stream = -1", 1L));
    assertThat(r.notes()).contains("1 cuda_sync event(s) have args.stream = 4294967295 (uint32 -1: a context or"
        + " device synchronization has no stream): imported as -1 (none)");
  }

  @Test
  void aTraceWithoutDeviceOperationsIsRefusedNamingWhatItHoldsAndWhyAndWritesNothing() throws Exception {
    Path out = dir.resolve("keep.gtrace");
    Samples.write(out, Samples.META, Samples.everyType());
    byte[] before = Files.readAllBytes(out);
    assertThat(refusal(out, """
        {"traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
          {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 7, "dur": 5},
          {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 20},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaGetDevice", "pid": 1, "tid": 1, "ts": 2, "dur": 1}
        ]}""")).isEqualTo("no device operations to import (no kernel, memcpy or memset event with a timestamp): the"
        + " profile recorded no CUDA device activity (a CPU-only profile, or ProfilerActivity.CUDA was not among the"
        + " activities); the trace holds cat cpu_op 2, cat cuda_runtime 1, cat user_annotation 1");
    assertThat(refusal(out, """
        {"traceEvents": [
          {"ph": "X", "cat": "cuda_profiler_range", "name": "range 0", "pid": 0, "tid": 7, "ts": 1, "dur": 5},
          {"ph": "X", "cat": "cuda_profiler_range", "name": "range 1", "pid": 0, "tid": 7, "ts": 9, "dur": 5},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5}
        ]}""")).contains("its device events are CUPTI profiler ranges (cuda_profiler_range), which are not operations;"
        + " the trace holds cat cpu_op 1, cat cuda_profiler_range 2");
    assertThat(refusal(out, """
        {"traceEvents": [
          {"ph": "X", "cat": "mtia_runtime", "name": "launch", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
          {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1}
        ]}""")).contains("its device events are another accelerator's (cat mtia_runtime), which gitm does not model;"
        + " the trace holds cat mtia_runtime 1, ph i 1");
    assertThat(refusal(out, """
        {"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "dur": 5}]}"""))
        .contains("its kernel, memcpy and memset events have no \"ts\"; the trace holds cat kernel 1");
    assertThat(refusal(out, "{\"traceEvents\": []}")).isEqualTo("no device operations to import (no kernel, memcpy"
        + " or memset event with a timestamp): the trace has no events; the trace holds nothing");
    assertThat(Files.readAllBytes(out)).isEqualTo(before);
    assertThat(TmpFiles.of(dir, "keep.gtrace")).isEmpty();
  }

  private String refusal(Path out, String trace) throws IOException {
    Path in = Files.createTempFile(dir, "trace-", ".json");
    Files.writeString(in, trace);
    try {
      KinetoImporter.importTrace(in, out);
    } catch (KinetoFormatException e) {
      return e.getMessage();
    }
    throw new AssertionError("imported: " + trace);
  }

  @Test
  void eventsNotImportedAreCountedByCategoryNamedAndKeptInTheMeta() throws Exception {
    Path in = dir.resolve("cats.json");
    Files.writeString(in, """
        {"traceEvents": [
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"stream": 7}},
          {"ph": "X", "cat": "cuda_profiler_range", "name": "range 0", "pid": 0, "tid": 7, "ts": 1, "dur": 5},
          {"ph": "X", "cat": "my_tool", "name": "phase", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
          {"ph": "X", "cat": "xpu_runtime", "name": "zeCommandListAppendLaunchKernel", "pid": 1, "tid": 1, "ts": 1,
           "dur": 5},
          {"ph": "s", "cat": "ac2g", "name": "", "id": 1, "pid": 1, "tid": 1, "ts": 1},
          {"ph": "f", "cat": "ac2g", "name": "", "id": 1, "pid": 0, "tid": 7, "ts": 1, "bp": "e"}
        ]}
        """);
    KinetoImporter.Result r = KinetoImporter.importTrace(in, dir.resolve("cats.gtrace"));
    assertThat(r.ignored()).containsExactlyInAnyOrderEntriesOf(Map.of("cat cuda_profiler_range", 1L, "cat my_tool",
        1L, "cat xpu_runtime", 1L, "ph s", 1L, "ph f", 1L));
    assertThat(Samples.readMeta(dir.resolve("cats.gtrace")).attributes()).containsEntry(
        "kineto.notImported.cat cuda_profiler_range", "1").containsEntry("kineto.notImported.cat my_tool", "1")
        .containsEntry("kineto.notImported.ph s", "1");
    assertThat(KinetoImporter.whyNotImported("cat cuda_profiler_range")).isEqualTo("CUPTI profiler ranges: measured"
        + " ranges, not device operations");
    assertThat(KinetoImporter.whyNotImported("cat my_tool")).isEqualTo("a category the importer does not know");
    assertThat(KinetoImporter.whyNotImported("cat xpu_runtime")).isEqualTo("another accelerator's events, which"
        + " gitm does not model");
    assertThat(KinetoImporter.whyNotImported("ph s")).startsWith("flow starts (ac2g");
  }

  @Test
  void aTimeBeyondTheRangeOfNanosecondsIsAnErrorAtItsEvent() throws Exception {
    Path in = dir.resolve("far.json");
    Files.writeString(in, """
        {"baseTimeNanoseconds": 1700000000000000000, "traceEvents": [
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 7600000000000000, "dur": 1}
        ]}
        """);
    Path out = dir.resolve("far.gtrace");
    assertThatThrownBy(() -> KinetoImporter.importTrace(in, out)).isInstanceOf(KinetoFormatException.class)
        .hasMessage("line 2, column 3: trace event cannot be imported: its time is out of range");
    assertThat(out).doesNotExist();
    assertThat(TmpFiles.of(dir, "far.gtrace")).isEmpty();
  }

  @Test
  void filesThatAreNotKinetoTracesAreNamedSo() throws Exception {
    Path out = dir.resolve("o.gtrace");
    Path noEvents = dir.resolve("a.json");
    Files.writeString(noEvents, "{\"schemaVersion\": 1}");
    assertThatThrownBy(() -> KinetoImporter.importTrace(noEvents, out)).isInstanceOf(KinetoFormatException.class)
        .hasMessage("not a Kineto/Chrome trace: no \"traceEvents\" array");

    Path gtrace = dir.resolve("b.json");
    Samples.write(gtrace, Samples.META, Samples.everyType());
    assertThatThrownBy(() -> KinetoImporter.importTrace(gtrace, out)).isInstanceOf(KinetoFormatException.class)
        .hasMessageMatching("line 1, column \\d+: .*");

    Path empty = dir.resolve("e.json");
    Files.writeString(empty, "\n");
    assertThatThrownBy(() -> KinetoImporter.importTrace(empty, out)).isInstanceOf(KinetoFormatException.class)
        .hasMessage("not a Kineto/Chrome trace: the file is empty");

    Path scalar = dir.resolve("c.json");
    Files.writeString(scalar, "42");
    assertThatThrownBy(() -> KinetoImporter.importTrace(scalar, out)).isInstanceOf(KinetoFormatException.class)
        .hasMessageContaining("does not hold a JSON object or array");

    Path trailing = dir.resolve("d.json");
    Files.writeString(trailing, "{\"traceEvents\": []}\n{\"traceEvents\": []}", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> KinetoImporter.importTrace(trailing, out)).isInstanceOf(KinetoFormatException.class)
        .hasMessage("line 2, column 1: unexpected content after the end of the trace");
    assertThat(out).doesNotExist();
  }

  @Test
  void theJsonArrayFormMayOmitItsClosingBracketAsEarlyKinetoDidButAnEventCutShortIsStillAnError()
      throws Exception {
    String events = """
        [
          {
            "ph": "X", "cat": "Runtime",
            "name": "cudaLaunchKernel", "pid": 3125, "tid": "3125",
            "ts": 1637062398455150, "dur": 9,
            "args": {
              "cbid": 211, "correlation": 1987,
              "external id": 14, "external ts": 1637062398455120
            }
          },
          {
            "ph": "X", "cat": "Kernel",
            "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": "stream 7",
            "ts": 1637062398455171, "dur": 152,
            "args": {
              "queued": 0, "device": 0, "context": 1,
              "stream": 7, "correlation": 1987, "external id": 14,
              "registers per thread": 120,
              "shared memory": 32768,
              "warps per SM": 2.5,
              "grid": [8, 16, 1],
              "block": [256, 1, 1]
            }
          },""";
    Path open = dir.resolve("open.json");
    Files.writeString(open, events);
    KinetoImporter.Result r = KinetoImporter.importTrace(open, dir.resolve("open.gtrace"));
    assertThat(r.records()).containsExactlyInAnyOrderEntriesOf(Map.of("api", 1L, "kernel", 1L));
    assertThat(r.meta().attributes()).containsEntry("kineto.unterminatedArray", "true");
    assertThat(r.meta().clock()).isEqualTo(ClockDomain.UNIX_EPOCH);

    Path withoutComma = dir.resolve("open2.json");
    Files.writeString(withoutComma, events.substring(0, events.length() - 1));
    assertThat(KinetoImporter.importTrace(withoutComma, dir.resolve("open2.gtrace")).recordCount()).isEqualTo(2);

    Path cut = dir.resolve("cut.json");
    Files.writeString(cut, events.substring(0, events.indexOf("\"warps per SM\"")));
    assertThatThrownBy(() -> KinetoImporter.importTrace(cut, dir.resolve("cut.gtrace")))
        .isInstanceOf(KinetoFormatException.class).hasMessageContaining("the file is truncated");
    assertThat(dir.resolve("cut.gtrace")).doesNotExist();

    Path objectCut = dir.resolve("object-cut.json");
    Files.writeString(objectCut, "{\"traceEvents\": " + events);
    assertThatThrownBy(() -> KinetoImporter.importTrace(objectCut, dir.resolve("object-cut.gtrace")))
        .as("the object form has no optional end").isInstanceOf(KinetoFormatException.class)
        .hasMessageContaining("the file is truncated");
  }

  @Test
  void theJsonArrayFormWithoutAnEnclosingObjectImportsToo() throws Exception {
    Path in = dir.resolve("array.json");
    Files.writeString(in, """
        [{"ph": "X", "cat": "cuda_runtime", "name": "cudaFree", "pid": 1, "tid": 2, "ts": 3, "dur": 4,
          "args": {"correlation": 5}},
         {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 8, "dur": 1, "args": {"stream": 7}}]
        """);
    KinetoImporter.importTrace(in, dir.resolve("o.gtrace"));
    assertThat(ofType(Samples.readAll(dir.resolve("o.gtrace")), ApiCallRecord.class)).containsExactly(
        new ApiCallRecord(ApiKind.FREE, "cudaFree", 2, 5, 3_000, 7_000));
  }
}
