package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The record layouts the decoder reads ({@link CuptiLayout}) are those of the installed CUPTI headers: a C program
 * compiled against them prints each size and offset. A CUDA upgrade that moves a field fails here.
 */
class CuptiLayoutTest {
  @Test
  void pinnedOffsetsMatchTheInstalledCuptiHeaders(@TempDir Path dir) throws Exception {
    Path gcc = CTools.onPath("gcc").orElse(null);
    Assumptions.assumeTrue(gcc != null, "gcc not on PATH: cannot compile the layout probe");
    Path include = CTools.cudaInclude().orElse(null);
    Assumptions.assumeTrue(include != null, "no cupti.h under $CUDA_HOME/include or /usr/local/cuda*/include");
    Path exe = dir.resolve("layouts");
    CTools.run(List.of(gcc.toString(), "-I" + include, "-o", exe.toString(),
        CTools.source("src/test/resources/cupti/layouts.c").toString()));
    Map<String, Long> measured = new LinkedHashMap<>();
    for (String line : CTools.run(List.of(exe.toString())).split("\n")) {
      if (!line.isBlank()) {
        String[] kv = line.split("=");
        measured.put(kv[0], Long.parseLong(kv[1].trim()));
      }
    }
    assertThat(measured).containsExactlyInAnyOrderEntriesOf(CuptiLayout.pinned());
  }

  @Test
  void theLargestDecodedRecordBoundsEveryView() {
    assertThat(CuptiLayout.MAX_SIZE).isGreaterThanOrEqualTo(CuptiLayout.pinned().entrySet().stream()
        .filter(e -> e.getKey().endsWith(".sizeof")).mapToLong(Map.Entry::getValue).max().orElseThrow());
  }
}
