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
import io.gitm.trace.SyncKind;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The Nsight Systems import against exports written with SQLite itself (resources tracer/nsys, made by
 * make_fixtures.py): every figure in manifest.json was computed by SQL over the same files, not by gitm.
 */
class NsysImporterTest {
  private static final long SESSION_START = 1764630000123456789L;

  @TempDir
  Path dir;

  private Path fixture(String name) throws IOException {
    Path p = dir.resolve(name);
    try (InputStream in = NsysImporterTest.class.getResourceAsStream("/tracer/nsys/" + name)) {
      assertThat(in).as("test resource " + name).isNotNull();
      Files.copy(in, p);
    }
    return p;
  }

  private static JsonNode manifest(String name) throws IOException {
    try (InputStream in = NsysImporterTest.class.getResourceAsStream("/tracer/nsys/manifest.json")) {
      return new ObjectMapper().readTree(in).get(name);
    }
  }

  private static <T> List<T> ofType(List<TraceRecord> rs, Class<T> type) {
    return rs.stream().filter(type::isInstance).map(type::cast).toList();
  }

  private static long start(TraceRecord r) {
    return switch (r) {
      case KernelRecord k -> k.startNs();
      case CopyRecord c -> c.startNs();
      case MemsetRecord m -> m.startNs();
      case ApiCallRecord a -> a.startNs();
      case SyncRecord s -> s.startNs();
      case MarkerRecord m -> m.startNs();
      default -> throw new AssertionError(r);
    };
  }

  /** Counts, busy time per stream, copy bytes by direction and sync time, as the manifest's SQL found them. */
  private static void assertMatchesManifest(NsysImporter.Result result, List<TraceRecord> rs, JsonNode m) {
    Map<String, Long> records = new TreeMap<>();
    m.get("records").properties().forEach(e -> records.put(e.getKey(), e.getValue().asLong()));
    assertThat(result.records()).isEqualTo(records);
    Map<String, Long> busy = new TreeMap<>();
    for (KernelRecord k : ofType(rs, KernelRecord.class)) {
      busy.merge(k.device() + "/" + k.stream(), k.endNs() - k.startNs(), Long::sum);
    }
    Map<String, Long> wantBusy = new TreeMap<>();
    m.get("kernelBusyNsByDeviceStream").properties().forEach(e -> wantBusy.put(e.getKey(), e.getValue().asLong()));
    assertThat(busy).isEqualTo(wantBusy);
    Map<String, Long> bytes = new TreeMap<>();
    for (CopyRecord c : ofType(rs, CopyRecord.class)) {
      bytes.merge(c.kind().name(), c.bytes(), Long::sum);
    }
    Map<String, Long> wantBytes = new TreeMap<>();
    m.get("copyBytesByKind").properties().forEach(e -> wantBytes.put(e.getKey(), e.getValue().asLong()));
    assertThat(bytes).isEqualTo(wantBytes);
    assertThat(ofType(rs, SyncRecord.class).stream().mapToLong(s -> s.endNs() - s.startNs()).sum())
        .isEqualTo(m.get("syncNs").asLong());
    assertThat(ofType(rs, KernelRecord.class).stream().mapToLong(KernelRecord::startNs).min().orElseThrow())
        .isEqualTo(m.get("firstKernelStartNs").asLong());
    assertThat(result.meta().devices().stream().map(TraceDevice::index).toList())
        .isEqualTo(m.get("devices").valueStream().map(JsonNode::asInt).toList());
    List<Long> starts = rs.stream().map(NsysImporterTest::start).toList();
    assertThat(starts).as("records in start order").isSorted();
  }

  @Test
  void aSchema3ExportImportsEveryTableWithTheCountsBusyTimeBytesAndSyncTimeItsSqlGives() throws Exception {
    Path out = dir.resolve("v3.gtrace");
    NsysImporter.Result result = NsysImporter.importTrace(fixture("nsys-v3.sqlite"), out);
    List<TraceRecord> rs = Samples.readAll(out);

    assertMatchesManifest(result, rs, manifest("nsys-v3.sqlite"));
    assertThat(result.schemaVersion()).isEqualTo("3.11.1");
    assertThat(result.meta().source()).isEqualTo("nsys");
    assertThat(result.meta().clock()).isEqualTo(ClockDomain.UNIX_EPOCH);
    assertThat(result.meta().devices()).containsExactly(
        new TraceDevice(0, "NVIDIA H200", "GPU-5f1e7c1a-0000-4000-8000-000000000001", DeviceKind.REAL));
    assertThat(result.meta().attributes()).containsEntry("nsys.gpu.0.smCount", "132")
        .containsEntry("nsys.gpu.0.totalMemoryBytes", "150754820096")
        .containsEntry("nsys.gpu.0.memoryBandwidthBytesPerSecond", "4800000000000")
        .containsEntry("nsys.gpu.0.computeCapability", "9.0").containsEntry("nsys.schemaVersion", "3.11.1")
        .containsEntry("nsys.version", "2024.2.1.106-242134037904v0");
    assertThat(result.missing()).isEmpty();
    assertThat(result.ignored()).containsExactly(Map.entry("NVTX_EVENTS (marks and other events without an end)", 1L));

    KernelRecord gemm = ofType(rs, KernelRecord.class).getFirst();
    assertThat(gemm).isEqualTo(new KernelRecord("ampere_sgemm_128x64_nn", 0, 7, 101, SESSION_START + 1_000_000,
        SESSION_START + 1_800_000, new Dim3(132, 2, 1), new Dim3(256, 1, 1), 128, 49152, 16384));
    assertThat(ofType(rs, KernelRecord.class).get(1).name())
        .isEqualTo("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    assertThat(ofType(rs, CopyRecord.class).getFirst()).isEqualTo(new CopyRecord(CopyKind.HTOD, 67_108_864,
        MemoryKind.PINNED, MemoryKind.DEVICE, 0, 7, 100, SESSION_START + 500_000, SESSION_START + 700_000));
    assertThat(ofType(rs, MemsetRecord.class)).containsExactly(new MemsetRecord(262_144, 0, MemoryKind.DEVICE, 0,
        13, 99, SESSION_START + 800_000, SESSION_START + 810_000));
    assertThat(ofType(rs, SyncRecord.class)).containsExactly(
        new SyncRecord(SyncKind.STREAM, 0, 7, 108, SESSION_START + 3_396_000, SESSION_START + 3_460_000),
        new SyncRecord(SyncKind.CONTEXT, 0, -1, 109, SESSION_START + 3_500_000, SESSION_START + 3_600_000));
    List<ApiCallRecord> api = ofType(rs, ApiCallRecord.class);
    assertThat(api.stream().map(ApiCallRecord::kind).toList()).containsExactly(ApiKind.COPY, ApiKind.MEMSET,
        ApiKind.LAUNCH, ApiKind.LAUNCH, ApiKind.LAUNCH, ApiKind.LAUNCH, ApiKind.COPY, ApiKind.SYNC, ApiKind.SYNC);
    assertThat(api).allSatisfy(a -> assertThat(a.threadId()).isEqualTo(4243));
    assertThat(ofType(rs, MarkerRecord.class)).containsExactly(
        new MarkerRecord("ProfilerStep#1", 4243, SESSION_START + 300_000, SESSION_START + 2_900_000),
        new MarkerRecord("ProfilerStep#2", 4243, SESSION_START + 2_900_000, SESSION_START + 3_700_000));
  }

  @Test
  void aSchema2ExportWithoutEnumTablesReadsCuptiNumbersAndTheGpusOfTargetInfoCudaGpu() throws Exception {
    Path out = dir.resolve("v2.gtrace");
    NsysImporter.Result result = NsysImporter.importTrace(fixture("nsys-v2.sqlite"), out);
    List<TraceRecord> rs = Samples.readAll(out);

    assertMatchesManifest(result, rs, manifest("nsys-v2.sqlite"));
    assertThat(result.schemaVersion()).isEqualTo("2.7.1");
    assertThat(result.meta().clock()).isEqualTo(ClockDomain.HOST_MONOTONIC);
    assertThat(result.meta().devices()).containsExactly(
        new TraceDevice(0, "A100-SXM4-40GB", "GPU-a1000000-0000-4000-8000-000000000000", DeviceKind.REAL),
        new TraceDevice(1, "A100-SXM4-40GB", "GPU-a1000001-0000-4000-8000-000000000001", DeviceKind.REAL));
    assertThat(result.meta().attributes()).containsEntry("nsys.gpu.1.smCount", "108")
        .containsEntry("nsys.gpu.0.memoryBandwidthBytesPerSecond", "1555200000000")
        .containsEntry("nsys.gpu.0.computeCapability", "8.0");
    assertThat(ofType(rs, CopyRecord.class)).containsExactly(
        new CopyRecord(CopyKind.DTOH, 8_388_608, MemoryKind.DEVICE, MemoryKind.PINNED, 0, 7, 14, 200_000, 260_000),
        new CopyRecord(CopyKind.PTOP, 2_097_152, MemoryKind.DEVICE, MemoryKind.DEVICE, 1, 7, 15, 210_000, 240_000));
    assertThat(ofType(rs, SyncRecord.class)).containsExactly(
        new SyncRecord(SyncKind.CONTEXT, 0, -1, 16, 262_500, 300_000));
    assertThat(result.notes()).anyMatch(n -> n.contains("no session start"));
  }

  @Test
  void aSqliteDatabaseOfAnotherProgramIsRefusedNamingItsTablesAndWritesNothing() throws Exception {
    Path out = dir.resolve("other.gtrace");
    assertThatThrownBy(() -> NsysImporter.importTrace(fixture("other-program.sqlite"), out))
        .isInstanceOf(NsysFormatException.class)
        .hasMessage("a SQLite database, but not an Nsight Systems export: it has none of the tables nsys export"
            + " writes (StringIds, META_DATA_EXPORT, CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS); its tables: moz_places,"
            + " moz_visits");
    assertThat(dir.resolve("other.gtrace")).doesNotExist();
    assertThat(TmpFiles.of(dir, "other.gtrace")).isEmpty();
  }

  @Test
  void anExportOfAnUnsupportedSchemaVersionIsRefusedNamingTheVersion() throws Exception {
    Path out = dir.resolve("v9.gtrace");
    assertThatThrownBy(() -> NsysImporter.importTrace(fixture("nsys-v9.sqlite"), out))
        .isInstanceOf(NsysFormatException.class)
        .hasMessage("an Nsight Systems export of schema version 9.0.0 (nsys 2031.1.1), which gitm does not read: it"
            + " reads schema versions 2.x and 3.x");
    assertThat(out).doesNotExist();
  }

  @Test
  void aTextFileNamedSqliteIsRefusedAsNotSqlite() throws Exception {
    Path text = dir.resolve("report.sqlite");
    Files.writeString(text, "kernel,start,end\n", StandardCharsets.UTF_8);
    assertThat(NsysImporter.isSqlite(text)).isFalse();
    assertThatThrownBy(() -> NsysImporter.importTrace(text, dir.resolve("t.gtrace")))
        .isInstanceOf(NsysFormatException.class).hasMessageStartingWith("not a SQLite database");
    assertThat(dir.resolve("t.gtrace")).doesNotExist();
  }

  @Test
  void aTruncatedExportFailsWithOneLineAndLeavesAnExistingOutputAsItWas() throws Exception {
    Path whole = fixture("nsys-v3.sqlite");
    assertThat(NsysImporter.isSqlite(whole)).isTrue();
    byte[] bytes = Files.readAllBytes(whole);
    Path cut = dir.resolve("cut.sqlite");
    Files.write(cut, Arrays.copyOf(bytes, bytes.length / 3));
    Path out = dir.resolve("cut.gtrace");
    Files.writeString(out, "an earlier trace");
    assertThatThrownBy(() -> NsysImporter.importTrace(cut, out)).isInstanceOf(NsysFormatException.class)
        .hasMessageStartingWith("cannot be read as an Nsight Systems export: ")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(Files.readString(out)).isEqualTo("an earlier trace");
    assertThat(TmpFiles.of(dir, "cut.gtrace")).isEmpty();
  }
}
