package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import io.gitm.trace.TraceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class PerfettoExporterTest {
  @TempDir
  Path dir;

  private JsonNode root;
  private List<JsonNode> events;
  private PerfettoExporter.Result result;

  @BeforeEach
  void export() throws Exception {
    List<TraceRecord> records = new ArrayList<>(Samples.everyType());
    records.add(Samples.kernel("sim_kernel", 1, 3, 99, 200_000, 210_123));
    records.add(StateSample.of(1, 205_000, Map.of(StateField.SM_CLOCK, 1500.0, StateField.TEMPERATURE, 61.0)));
    records.add(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 42, 99, 199_000, 199_500));
    Path trace = dir.resolve("t.gtrace");
    Samples.write(trace, Samples.TWO_DEVICES, records);
    Path json = dir.resolve("t.json");
    result = PerfettoExporter.export(trace, json);
    root = JsonMapper.builder().build().readTree(json.toFile());
    events = StreamSupport.stream(root.get("traceEvents").spliterator(), false).toList();
  }

  private List<JsonNode> phase(String ph) {
    return events.stream().filter(e -> e.path("ph").asString("").equals(ph)).toList();
  }

  private Map<Integer, String> processNames() {
    Map<Integer, String> m = new HashMap<>();
    phase("M").stream().filter(e -> e.get("name").asString().equals("process_name"))
        .forEach(e -> m.put(e.get("pid").asInt(), e.get("args").get("name").asString()));
    return m;
  }

  /** Thread names by (pid, tid). */
  private Map<List<Integer>, String> threadNames() {
    Map<List<Integer>, String> m = new HashMap<>();
    phase("M").stream().filter(e -> e.get("name").asString().equals("thread_name"))
        .forEach(e -> m.put(List.of(e.get("pid").asInt(), e.get("tid").asInt()), e.get("args").get("name").asString()));
    return m;
  }

  private String trackOf(JsonNode e) {
    return processNames().get(e.get("pid").asInt()) + " / "
        + threadNames().get(List.of(e.get("pid").asInt(), e.get("tid").asInt()));
  }

  private JsonNode slice(String name) {
    return phase("X").stream().filter(e -> e.get("name").asString().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void eachDeviceIsAProcessNamedWithItsKindAndTheHostIsOne() {
    assertThat(processNames().values()).containsExactlyInAnyOrder("host", "GPU 0: NVIDIA H200",
        "GPU 1: sim-h200 (simulated)");
    assertThat(root.get("otherData").get("deviceKind").asString()).isEqualTo("simulated");
    assertThat(root.get("otherData").get("clock").asString()).isEqualTo("SIMULATED");
  }

  @Test
  void kernelsCopiesAndMemsetsAreCompleteSlicesOnTheirStreamTrack() {
    JsonNode gemm = slice("void gemm<float, 128>(float const*, float*)");
    assertThat(trackOf(gemm)).isEqualTo("GPU 0: NVIDIA H200 / stream 7");
    assertThat(gemm.get("cat").asString()).isEqualTo("kernel");
    assertThat(gemm.get("args").get("grid").toString()).isEqualTo("[128,2,1]");
    assertThat(gemm.get("args").get("correlation").asLong()).isEqualTo(7);

    JsonNode copy = slice("Memcpy HtoD (Pageable -> Device)");
    assertThat(trackOf(copy)).isEqualTo("GPU 0: NVIDIA H200 / stream 13");
    assertThat(copy.get("args").get("bytes").asLong()).isEqualTo(1 << 20);
    JsonNode memset = slice("Memset (Device)");
    assertThat(trackOf(memset)).isEqualTo("GPU 0: NVIDIA H200 / stream 13");
    assertThat(trackOf(slice("sim_kernel"))).isEqualTo("GPU 1: sim-h200 (simulated) / stream 3");
    assertThat(trackOf(slice("Stream Sync"))).isEqualTo("GPU 0: NVIDIA H200 / synchronization");
  }

  @Test
  void timesAreExactMicrosecondsFromTheEarliestRecord() {
    assertThat(root.get("otherData").get("timeOriginNs").asString()).isEqualTo("-5");
    JsonNode gemm = slice("void gemm<float, 128>(float const*, float*)");
    assertThat(gemm.get("ts").decimalValue()).isEqualByComparingTo("6.005");
    assertThat(gemm.get("dur").decimalValue()).isEqualByComparingTo("20.000");
    JsonNode sim = slice("sim_kernel");
    assertThat(sim.get("ts").decimalValue()).isEqualByComparingTo("200.005");
    assertThat(sim.get("dur").decimalValue()).isEqualByComparingTo("10.123");
    assertThat(PerfettoExporter.micros(0)).isEqualTo("0.000");
    assertThat(PerfettoExporter.micros(1_234_567)).isEqualTo("1234.567");
    assertThat(PerfettoExporter.micros(1_764_457_200_001_140_512L)).isEqualTo("1764457200001140.512");
    assertThat(PerfettoExporter.micros(-5)).isEqualTo("-0.005");
    assertThat(PerfettoExporter.micros(1_050)).isEqualTo("1.050");
  }

  @Test
  void hostApiCallsAndMarkersAreOnHostThreadTracksAndOverheadOnItsOwn() {
    assertThat(trackOf(slice("cudaLaunchKernel"))).isEqualTo("host / thread 42");
    assertThat(trackOf(slice("ProfilerStep#1"))).isEqualTo("host / thread 42");
    assertThat(trackOf(slice("OTHER"))).as("an API call without a name is named by its kind")
        .isEqualTo("host / thread 42");
    assertThat(trackOf(slice("BUFFER_FLUSH"))).isEqualTo("host / tracer overhead (thread 43)");
  }

  @Test
  void stateSamplesAreCountersOneTrackPerFieldWithTheUnitAndWithoutUnreadFields() {
    List<JsonNode> counters = phase("C");
    Set<String> names = new HashSet<>();
    counters.forEach(c -> names.add(processNames().get(c.get("pid").asInt()) + " / " + c.get("name").asString()));
    assertThat(names).containsExactlyInAnyOrder("GPU 0: NVIDIA H200 / SM_CLOCK (MHz)", "GPU 0: NVIDIA H200 / POWER (W)",
        "GPU 0: NVIDIA H200 / CLOCK_EVENT_REASONS (bits)", "GPU 0: NVIDIA H200 / REMAPPED_ROWS (count)",
        "GPU 1: sim-h200 (simulated) / SM_CLOCK (MHz)", "GPU 1: sim-h200 (simulated) / TEMPERATURE (C)");
    assertThat(counters).hasSize(6);
    JsonNode power = counters.stream().filter(c -> c.get("name").asString().startsWith("POWER")).findFirst()
        .orElseThrow();
    assertThat(power.get("args").get("value").asDouble()).isEqualTo(151.25);
  }

  @Test
  void flowsLinkLaunchCallsToTheKernelsWithTheirCorrelationId() {
    Map<Long, JsonNode> starts = new HashMap<>();
    phase("s").forEach(s -> starts.put(s.get("id").asLong(), s));
    Map<Long, JsonNode> ends = new HashMap<>();
    phase("f").forEach(f -> ends.put(f.get("id").asLong(), f));
    assertThat(starts).containsOnlyKeys(7L, 99L);
    assertThat(ends).as("only the ids whose call is in the trace").containsOnlyKeys(7L, 99L);
    assertThat(trackOf(starts.get(99L))).isEqualTo("host / thread 42");
    assertThat(trackOf(ends.get(99L))).isEqualTo("GPU 1: sim-h200 (simulated) / stream 3");
    assertThat(ends.get(99L).get("bp").asString()).isEqualTo("e");
    assertThat(ends.get(99L).get("ts").decimalValue()).isEqualByComparingTo("200.005");
  }

  @Test
  void everyFlowIdHasExactlyOneStartAndOneEndWhateverTheOrderAndRepeatsOfItsRecords() throws Exception {
    List<TraceRecord> records = new ArrayList<>();
    for (int i = 1; i <= 300; i++) {
      long t = i * 10_000L;
      // a third of the work comes before its call in the file; every fifth call is repeated; every seventh id has
      // device work only, every eleventh a call only
      KernelRecord k = Samples.kernel("k", 0, 7, i, t + 3_000, t + 8_000);
      ApiCallRecord a = new ApiCallRecord(ApiKind.LAUNCH, "cuLaunchKernel", 42, i, t, t + 2_000);
      if (i % 7 != 0) {
        records.add(a);
        if (i % 5 == 0) {
          records.add(new ApiCallRecord(ApiKind.LAUNCH, "cudaLaunchKernel", 42, i, t + 100, t + 200));
        }
      }
      if (i % 11 != 0) {
        records.add(i % 3 == 0 ? 0 : records.size(), k);
      }
    }
    Path trace = dir.resolve("flows.gtrace");
    Samples.write(trace, Samples.META, records);
    Path json = dir.resolve("flows.json");
    PerfettoExporter.export(trace, json);
    List<JsonNode> all = StreamSupport.stream(JsonMapper.builder().build().readTree(json.toFile())
        .get("traceEvents").spliterator(), false).toList();
    Map<Long, Integer> starts = new HashMap<>();
    Map<Long, Integer> ends = new HashMap<>();
    for (JsonNode e : all) {
      String ph = e.path("ph").asString("");
      if (ph.equals("s") || ph.equals("f")) {
        assertThat(e.get("cat").asString()).isEqualTo("ac2g");
        assertThat(e.get("name").asString()).isEqualTo("ac2g");
        (ph.equals("s") ? starts : ends).merge(e.get("id").asLong(), 1, Integer::sum);
      }
      if (ph.equals("f")) {
        assertThat(e.get("bp").asString()).isEqualTo("e");
      }
    }
    assertThat(starts).isNotEmpty().allSatisfy((id, n) -> assertThat(n).as("starts of %s", id).isEqualTo(1));
    assertThat(ends).allSatisfy((id, n) -> assertThat(n).as("ends of %s", id).isEqualTo(1));
    assertThat(ends.keySet()).isEqualTo(starts.keySet());
    assertThat(starts).doesNotContainKeys(7L, 11L).containsKeys(1L, 3L, 5L);
    assertThat(all).filteredOn(e -> e.path("ph").asString("").equals("X") && e.get("name").asString()
        .startsWith("cu")).extracting(e -> e.get("cat").asString()).containsOnly("cuda_driver", "cuda_runtime");
  }

  @Test
  void categoriesAreThoseThePyTorchProfilerWrites() {
    Set<String> cats = new HashSet<>();
    phase("X").forEach(e -> cats.add(e.get("cat").asString()));
    assertThat(cats).isSubsetOf("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "cuda_sync",
        "user_annotation", "overhead").contains("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime");
  }

  @Test
  void everyTrackHasItsOwnThreadIdAcrossProcesses() {
    Map<Integer, Integer> pidOfTid = new HashMap<>();
    for (JsonNode e : events) {
      if (e.has("tid") && !e.get("ph").asString().equals("M")) {
        Integer prev = pidOfTid.put(e.get("tid").asInt(), e.get("pid").asInt());
        assertThat(prev == null || prev == e.get("pid").asInt()).as("tid %s in two processes", e.get("tid")).isTrue();
      }
    }
    assertThat(threadNames().keySet()).extracting(k -> k.get(1)).doesNotHaveDuplicates();
    assertThat(result.records()).isEqualTo(22);
    assertThat(result.events()).isEqualTo(events.size());
  }

  @Test
  void aCorruptTraceExportsNothing() throws Exception {
    Path trace = dir.resolve("bad.gtrace");
    Samples.write(trace, Samples.META, Samples.kernels(5_000));
    byte[] bytes = Files.readAllBytes(trace);
    Files.write(trace, java.util.Arrays.copyOf(bytes, bytes.length - 100));
    Path json = dir.resolve("bad.json");
    assertThatThrownBy(() -> PerfettoExporter.export(trace, json)).isInstanceOf(TraceFormatException.class)
        .hasMessageContaining("at byte offset");
    assertThat(json).doesNotExist();
    assertThat(TmpFiles.of(dir, "bad.json")).isEmpty();
  }

  @Test
  void anEmptyTraceExportsValidJsonWithOnlyMetadata() throws Exception {
    Path trace = dir.resolve("empty.gtrace");
    Samples.write(trace, Samples.META, List.of());
    Path json = dir.resolve("empty.json");
    PerfettoExporter.export(trace, json);
    JsonNode r = JsonMapper.builder().build().readTree(json.toFile());
    assertThat(r.get("traceEvents")).allSatisfy(e -> assertThat(e.get("ph").asString()).isEqualTo("M"));
  }
}
