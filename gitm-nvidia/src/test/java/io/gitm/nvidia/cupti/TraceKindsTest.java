package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GITM_TRACE_KINDS as the injection library reads it (src/main/c/trace_kinds.c, driven by a small C program): known
 * items combine into a set, case and blanks do not matter, and a bad value yields the default with a reason that
 * names the bad item and the known ones.
 */
class TraceKindsTest {
  static final String DEFAULT = "kernel,memcpy,memset,sync,api";
  static final String ALL = "kernel,memcpy,memset,sync,runtime,driver,overhead";

  @TempDir
  static Path dir;
  static Path exe;

  @BeforeEach
  void build() throws Exception {
    Path gcc = CTools.onPath("gcc").orElse(null);
    Assumptions.assumeTrue(gcc != null, "gcc not on PATH: trace_kinds.c cannot be built here");
    if (exe != null) {
      return;
    }
    Path out = dir.resolve("trace_kinds_cli");
    CTools.run(List.of(gcc.toString(), "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
        "-I" + CTools.source("src/main/c"), "-o", out.toString(),
        CTools.source("src/test/resources/cupti/trace_kinds_cli.c").toString(),
        CTools.source("src/main/c/trace_kinds.c").toString()));
    exe = out;
  }

  static String parse(String spec) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(exe.toString(), spec));
    return CTools.run(cmd).strip();
  }

  @Test
  void unsetOrBlankMeansTheDefault() throws Exception {
    assertThat(parse("-")).isEqualTo("ok " + DEFAULT);
    assertThat(parse("")).isEqualTo("ok " + DEFAULT);
    assertThat(parse("  ")).isEqualTo("ok " + DEFAULT);
    assertThat(parse("default")).isEqualTo("ok " + DEFAULT);
  }

  @Test
  void itemsCombineIgnoringCaseAndBlanks() throws Exception {
    assertThat(parse(" Kernel , API ")).isEqualTo("ok kernel,api");
    assertThat(parse("memcpy,kernel,memcpy")).isEqualTo("ok kernel,memcpy");
    assertThat(parse("default,runtime")).isEqualTo("ok " + DEFAULT.replace(",api", ",api,runtime"));
    assertThat(parse("kernel,memcpy,memset,sync,runtime,driver"))
        .isEqualTo("ok kernel,memcpy,memset,sync,runtime,driver");
  }

  @Test
  void allIsEveryKindTheLibraryTracedBeforeTheChoiceAndNoneIsNothing() throws Exception {
    assertThat(parse("ALL")).isEqualTo("ok " + ALL);
    assertThat(parse("none")).isEqualTo("ok none");
    assertThat(parse("none,overhead")).isEqualTo("ok overhead");
  }

  @Test
  void anUnknownItemFallsBackToTheDefaultNamingTheItemAndTheKnownOnes() throws Exception {
    assertThat(parse("kernel,bogus")).startsWith("error " + DEFAULT + " | ")
        .contains("unknown kind \"bogus\" in \"kernel,bogus\"")
        .contains("known: kernel, memcpy, memset, sync, api, runtime, driver, overhead, default, all, none");
  }

  @Test
  void anEmptyItemIsAnErrorNotASilentSkip() throws Exception {
    assertThat(parse("kernel,,memcpy")).startsWith("error " + DEFAULT + " | ").contains("empty item");
    assertThat(parse("kernel,")).startsWith("error " + DEFAULT + " | ").contains("empty item");
  }

  @Test
  void aVeryLongBadItemIsCutInTheMessageWithoutOverflow() throws Exception {
    String spec = "x".repeat(3000);
    assertThat(parse(spec)).startsWith("error " + DEFAULT + " | ").contains("unknown kind \"" + "x".repeat(64) + "\"")
        .doesNotContain("x".repeat(65) + "\"");
  }
}
