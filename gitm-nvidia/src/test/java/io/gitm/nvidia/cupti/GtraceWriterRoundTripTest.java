package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.ApiKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The injection library's C trace writer (src/main/c/gtrace_writer.c), driven by a C program from four threads
 * with every record type, produces a file that an independent reader of docs/trace-format.md decodes into exactly
 * the records the program says it wrote.
 */
class GtraceWriterRoundTripTest {
  @TempDir
  static Path dir;
  static byte[] file;
  static List<String> expected;

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
      assertThat(ApiKind.values()[Integer.parseInt(f[1])]).as(f[2]).isEqualTo(ApiKinds.classify(f[2]));
    }
    assertThat(apis.stream().map(l -> l.split("\t")[1]).distinct().count()).isEqualTo(ApiKind.values().length);
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

  private static int secondBlockOffset() {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(file).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    int first = 16 + b.getInt(12);
    return first + 12 + b.getInt(first);
  }
}
