package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.testkit.Fixtures;
import io.gitm.trace.ApiKind;
import io.gitm.trace.ApiKinds;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The injection library's C trace writer (src/main/c/gtrace_writer.c), driven by a C program from four threads
 * with every record type, produces a file that an independent reader of docs/trace-format.md decodes into exactly
 * the records the program says it wrote; and its API classifier gives every name the kind that
 * {@link ApiKinds} gives it.
 */
class GtraceWriterRoundTripTest {
  /** Every driver and runtime callback name of CUPTI 13.0 (cupti_driver_cbid.h, cupti_runtime_cbid.h). */
  static final String CUPTI_NAMES = "src/test/resources/cupti/cupti-callback-names-cuda13.0.txt";
  /** A PyTorch profiler trace recorded on an H200: the names Kineto gives runtime and driver calls. */
  static final String KINETO_TRACE = "/tracer/real/kineto-h200-torch2.11.pt.trace.json";
  /** Names at the edges of the rules: blanks, suffixes alone, near misses of the whole-name rules. */
  static final List<String> EDGES = List.of("", " ", " cuMemAlloc_v2 ", "\tcudaFree\t", "_v2", "x_v",
      "cudaMalloc_vx2", "cuda_v12_ptds", "cuMemCreateX", "cuMemCreate_v2", "cudaHostAllocX", "cuMemReleaseX",
      "cudaStreamWaitEventX", "cudaStreamSynchronizeX", "cudaLaunchHostFunc", "cuLaunchHostFunc_ptsz",
      "cuGraphLaunchX", "cudaMemPrefetchAsync", "cuMemDiscardAndPrefetchBatchAsync", "cudaMemcpy_ptds_v7000",
      "cudaMemcpy_v7000_ptds", "Launch", "cuLaunch", "cudaLaunch_v3020", "cudaMemset", "cuMemAlloc");
  private static final Pattern CBID = Pattern.compile("CUPTI_(?:RUNTIME|DRIVER)_TRACE_CBID_(\\w+)");

  @TempDir
  static Path dir;
  static byte[] file;
  static List<String> expected;
  static Path classifier;

  /** Per test, so that without gcc each test reports as skipped with the reason; the C program runs once. */
  @BeforeEach
  void writeWithC() throws Exception {
    Path gcc = CTools.onPath("gcc").orElse(null);
    Assumptions.assumeTrue(gcc != null, "gcc not on PATH: the C trace writer cannot be built here");
    if (file != null) {
      return;
    }
    Path exe = dir.resolve("gtrace_roundtrip");
    CTools.run(List.of(gcc.toString(), "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-O2", "-pthread",
        "-I" + CTools.source("src/main/c"), "-o", exe.toString(),
        CTools.source("src/test/resources/cupti/gtrace_roundtrip.c").toString(),
        CTools.source("src/main/c/gtrace_writer.c").toString()));
    Path trace = dir.resolve("t.gtrace");
    Path txt = dir.resolve("t.txt");
    CTools.run(List.of(exe.toString(), trace.toString(), txt.toString()));
    file = Files.readAllBytes(trace);
    expected = Files.readAllLines(txt, StandardCharsets.UTF_8);
    classifier = dir.resolve("api_kinds_cli");
    CTools.run(List.of(gcc.toString(), "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-O2",
        "-pthread", "-I" + CTools.source("src/main/c"), "-o", classifier.toString(),
        CTools.source("src/test/resources/cupti/api_kinds_cli.c").toString(),
        CTools.source("src/main/c/gtrace_writer.c").toString()));
  }

  @Test
  void everyRecordTheCProgramWroteIsReadBackWithTheSameFields() {
    MiniGtraceReader.Parsed p = MiniGtraceReader.read(file);
    assertThat(expected).hasSize(6000);
    List<String> got = new ArrayList<>(p.lines());
    List<String> want = new ArrayList<>(expected);
    got.sort(null);
    want.sort(null);
    assertThat(got).containsExactlyElementsOf(want);
    assertThat(want.stream().map(l -> l.substring(0, l.indexOf('\t'))).distinct())
        .containsExactlyInAnyOrder("KERNEL", "COPY", "MEMSET", "SYNC", "API", "OVERHEAD", "STATE", "MARKER");
  }

  @Test
  void recordsAreCutIntoBlocksOfAboutSixtyFourKibibytes() {
    MiniGtraceReader.Parsed p = MiniGtraceReader.read(file);
    assertThat(p.blocks()).isGreaterThan(2);
    assertThat(p.maxPayload()).isLessThanOrEqualTo(64 * 1024);
  }

  @Test
  void eachNameIsDefinedOnceInTheStringTable() {
    MiniGtraceReader.Parsed p = MiniGtraceReader.read(file);
    assertThat(p.strings().values()).doesNotHaveDuplicates()
        .contains("void at::native::elementwise<\"κ\">", "tab\tand\\backslash", "iteration", "cuLaunchKernel");
  }

  @Test
  void metaIsTheJsonWrittenAtCloseWithEscapedStrings() {
    String meta = MiniGtraceReader.read(file).meta();
    assertThat(meta.strip()).startsWith("{\"source\":\"cupti\",\"clock\":\"HOST_MONOTONIC\"")
        .contains("\"name\":\"Test \\\"GPU\\\"\\n\"").contains("\"kind\":\"REAL\"").endsWith("}");
    assertThat(meta.length()).isEqualTo(4096);
  }

  @Test
  void theCApiClassifierAgreesWithTheJavaOne() {
    List<String> apis = expected.stream().filter(l -> l.startsWith("API\t")).toList();
    assertThat(apis).isNotEmpty();
    for (String l : apis) {
      String[] f = l.split("\t");
      assertThat(ApiKind.values()[Integer.parseInt(f[1])]).as(f[2]).isEqualTo(ApiKinds.of(f[2]));
    }
    assertThat(apis.stream().map(l -> l.split("\t")[1]).distinct().count()).isEqualTo(ApiKind.values().length);
  }

  @Test
  void theCApiClassifierAgreesWithTheJavaOneOnEveryNameCuptiAndKinetoGive() throws Exception {
    Set<String> names = new LinkedHashSet<>(Files.readAllLines(CTools.source(CUPTI_NAMES), StandardCharsets.UTF_8));
    assertThat(names).hasSizeGreaterThan(1000).contains("cudaLaunchKernel_v7000", "cuMemPrefetchAsync_v2");
    Optional<Path> include = CTools.cudaInclude();
    if (include.isPresent()) {
      names.addAll(cbidNames(include.get()));
    }
    Set<String> kineto = kinetoApiNames(Fixtures.file(KINETO_TRACE));
    assertThat(kineto).contains("cudaLaunchKernel", "cudaMemcpyAsync", "cudaStreamSynchronize");
    names.addAll(kineto);
    names.addAll(EDGES);
    Map<String, ApiKind> disagreements = new LinkedHashMap<>();
    Map<ApiKind, Integer> kinds = new LinkedHashMap<>();
    List<String> list = List.copyOf(names);
    List<ApiKind> c = classifyInC(list);
    for (int i = 0; i < list.size(); i++) {
      kinds.merge(c.get(i), 1, Integer::sum);
      if (c.get(i) != ApiKinds.of(list.get(i))) {
        disagreements.put(list.get(i), c.get(i));
      }
    }
    assertThat(disagreements).as("names the C classifier (value) and ApiKinds class differently").isEmpty();
    assertThat(kinds.keySet()).containsExactlyInAnyOrder(ApiKind.values());
  }

  @Test
  void aFlippedPayloadByteIsReportedAtItsBlocksOffset() {
    byte[] bad = file.clone();
    int secondBlock = secondBlockOffset();
    bad[secondBlock + 12 + 100] ^= 0x40;
    assertThatThrownBy(() -> MiniGtraceReader.read(bad)).isInstanceOf(MiniGtraceReader.Corrupt.class)
        .hasMessageContaining("byte offset " + secondBlock).hasMessageContaining("CRC");
  }

  @Test
  void aFileWithoutItsEndBlockIsTruncated() {
    byte[] cut = Arrays.copyOf(file, file.length - 12);
    assertThatThrownBy(() -> MiniGtraceReader.read(cut)).isInstanceOf(MiniGtraceReader.Corrupt.class)
        .hasMessageContaining("without an end block");
  }

  /** What gt_classify_api gives each of {@code names}, in order. */
  private static List<ApiKind> classifyInC(List<String> names) throws Exception {
    assertThat(names).noneMatch(n -> n.contains("\n"));
    Path in = dir.resolve("names.txt");
    Files.write(in, names, StandardCharsets.UTF_8);
    List<ApiKind> out = CTools.run(List.of(classifier.toString(), in.toString())).lines()
        .map(l -> ApiKind.values()[Integer.parseInt(l)]).toList();
    assertThat(out).hasSameSizeAs(names);
    return out;
  }

  /** The callback names of the CUPTI headers in {@code include}. */
  private static Set<String> cbidNames(Path include) throws Exception {
    Set<String> out = new LinkedHashSet<>();
    for (String h : List.of("cupti_driver_cbid.h", "cupti_runtime_cbid.h")) {
      Path f = include.resolve(h);
      if (Files.isRegularFile(f)) {
        Matcher m = CBID.matcher(Files.readString(f));
        while (m.find()) {
          out.add(m.group(1));
        }
      }
    }
    out.removeAll(Set.of("INVALID", "SIZE", "FORCE_INT"));
    return out;
  }

  /** The names of the runtime and driver calls of a Kineto trace (the categories the Kineto importer reads). */
  private static Set<String> kinetoApiNames(Path trace) throws Exception {
    JsonNode root = JsonMapper.builder().build().readTree(Files.readString(trace));
    Set<String> out = new LinkedHashSet<>();
    for (JsonNode e : root.get("traceEvents")) {
      String cat = e.path("cat").asString("").toLowerCase(Locale.ROOT);
      if (Set.of("cuda_runtime", "cuda_driver", "runtime", "driver").contains(cat) && e.has("name")) {
        out.add(e.get("name").asString());
      }
    }
    return out;
  }

  private static int secondBlockOffset() {
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int first = 16 + b.getInt(12);
    return first + 12 + b.getInt(first);
  }
}
