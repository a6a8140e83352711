package io.gitm.nvidia.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.nvidia.ffm.NativeLibraries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built injection library, loaded as the driver loads it and with the process then exiting, leaves a complete
 * trace under the name in GITM_TRACE_OUT (never only the .tmp), whose meta says how clocks were aligned and which
 * CUPTI calls failed.
 */
class InjectionLibraryTest {
  static final Path BUILT = Path.of("target/native/libgitm_inject.so");

  @Test
  void aProcessThatLoadsTheLibraryLeavesACompleteTraceUnderTheFinalName(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(BUILT),
        "libgitm_inject.so was not built (no gcc or CUDA toolkit at build time): nothing to load");
    Path gcc = CTools.onPath("gcc").orElse(null);
    Assumptions.assumeTrue(gcc != null, "gcc not on PATH: cannot build the loader program");
    Path exe = dir.resolve("inject_smoke");
    CTools.run(List.of(gcc.toString(), "-o", exe.toString(),
        CTools.source("src/test/resources/cupti/inject_smoke.c").toString(), "-ldl"));
    Path trace = dir.resolve("smoke.gtrace");
    ProcessBuilder pb = new ProcessBuilder(exe.toString(), BUILT.toAbsolutePath().toString()).redirectErrorStream(true);
    pb.environment().put("GITM_TRACE_OUT", trace.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(out).isZero();
    assertThat(out).contains("InitializeInjection=1").contains("gitm_inject: wrote");
    assertThat(trace).isRegularFile();
    assertThat(dir.resolve("smoke.gtrace.tmp")).doesNotExist();
    MiniGtraceReader.Parsed parsed = MiniGtraceReader.read(Files.readAllBytes(trace));
    assertThat(parsed.meta()).contains("\"clock\":\"HOST_MONOTONIC\"").contains("\"clock.alignment\":")
        .contains("\"cupti.version\":\"13");
    if (NativeLibraries.tryFind("cuda").isEmpty()) {
      assertThat(parsed.meta()).contains("\"errors\":\"").contains("cuptiActivityEnable");
      assertThat(parsed.lines()).isEmpty();
    }
  }

  @Test
  void aDescendantOfATracedProcessWritesItsOwnFileInsteadOfTheFirstProcesssOne(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(BUILT), "libgitm_inject.so was not built: nothing to load");
    Path gcc = CTools.onPath("gcc").orElse(null);
    Assumptions.assumeTrue(gcc != null, "gcc not on PATH: cannot build the loader program");
    Path exe = dir.resolve("inject_smoke");
    CTools.run(List.of(gcc.toString(), "-o", exe.toString(),
        CTools.source("src/test/resources/cupti/inject_smoke.c").toString(), "-ldl"));
    ProcessBuilder pb = new ProcessBuilder(exe.toString(), BUILT.toAbsolutePath().toString()).redirectErrorStream(true);
    pb.environment().put("GITM_TRACE_OUT", dir.resolve("job.gtrace").toString());
    pb.environment().put("GITM_TRACE_PID", "1"); // as if an ancestor (pid 1) were the traced process
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(out).isZero();
    assertThat(dir.resolve("job.gtrace")).doesNotExist();
    assertThat(dir.resolve("job-" + p.pid() + ".gtrace")).isRegularFile();
  }

  /**
   * Runs inject_smoke with the library and {@code env}; returns its output (stdout and stderr) and the trace's meta.
   */
  static String[] smoke(Path dir, Map<String, String> env) throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(BUILT), "libgitm_inject.so was not built: nothing to load");
    Path gcc = CTools.onPath("gcc").orElse(null);
    Assumptions.assumeTrue(gcc != null, "gcc not on PATH: cannot build the loader program");
    Path exe = dir.resolve("inject_smoke");
    CTools.run(List.of(gcc.toString(), "-o", exe.toString(),
        CTools.source("src/test/resources/cupti/inject_smoke.c").toString(), "-ldl"));
    Path trace = dir.resolve("kinds.gtrace");
    ProcessBuilder pb = new ProcessBuilder(exe.toString(), BUILT.toAbsolutePath().toString()).redirectErrorStream(true);
    pb.environment().put("GITM_TRACE_OUT", trace.toString());
    pb.environment().remove("GITM_TRACE_PID");
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(out).isZero();
    assertThat(trace).as(out).isRegularFile();
    return new String[] {out, MiniGtraceReader.read(Files.readAllBytes(trace)).meta()};
  }

  @Test
  void aBadTraceKindsValueIsReportedOnStderrAndTheDefaultIsTraced(@TempDir Path dir) throws Exception {
    String[] r = smoke(dir, Map.of("GITM_TRACE_KINDS", "kernel,bogus"));
    assertThat(r[0]).contains("gitm_inject: GITM_TRACE_KINDS: unknown kind \"bogus\"")
        .contains("tracing the default (kernel,memcpy,memset,sync,api)").contains("InitializeInjection=1");
    assertThat(r[1]).contains("\"trace.kinds\":\"kernel,memcpy,memset,sync,api\"")
        .contains("\"trace.kinds.error\":\"unknown kind \\\"bogus\\\"");
  }

  @Test
  void theChosenKindsAndTheRecordCountsPerTypeAreInTheMeta(@TempDir Path dir) throws Exception {
    String[] r = smoke(dir, Map.of("GITM_TRACE_KINDS", "kernel,runtime"));
    assertThat(r[1]).contains("\"trace.kinds\":\"kernel,runtime\"").doesNotContain("trace.kinds.error")
        .doesNotContain("trace.apiFunctions").contains("\"records.kernel\":").contains("\"records.api\":")
        .contains("\"buffers.bytes\":\"8388608\"");
    assertThat(r[0]).contains("(kinds kernel,runtime; kernel ");
  }

  @Test
  void aBadClockChoiceIsReportedAndTheMonotonicCallbackIsKept(@TempDir Path dir) throws Exception {
    String[] r = smoke(dir, Map.of("GITM_TRACE_CLOCK", "tsc"));
    assertThat(r[0]).contains("unknown GITM_TRACE_CLOCK \"tsc\" (known: monotonic, cupti); using monotonic");
    assertThat(r[1]).contains("\"clock.error\":");
  }

  @Test
  void theCuptiClockChoiceMeasuresAnOffsetInsteadOfRegisteringTheCallback(@TempDir Path dir) throws Exception {
    String[] r = smoke(dir, Map.of("GITM_TRACE_CLOCK", "cupti"));
    assertThat(r[0]).doesNotContain("cuptiActivityRegisterTimestampCallback");
    assertThat(r[1]).contains("GITM_TRACE_CLOCK=cupti").contains("\"clock.uncertaintyNs\":");
  }

  @Test
  void theChildEnvironmentNamesTheLibraryAndTheTraceByAbsolutePath(@TempDir Path dir) throws Exception {
    Path lib = Files.writeString(dir.resolve("libgitm_inject.so"), "x");
    Map<String, String> env = Injection.environment(lib, Path.of("out.gtrace"));
    assertThat(env).containsEntry("CUDA_INJECTION64_PATH", lib.toAbsolutePath().toString())
        .containsEntry("GITM_TRACE_OUT", Path.of("out.gtrace").toAbsolutePath().toString());
  }

  @Test
  void aMissingLibraryFileIsRefusedWithItsPath(@TempDir Path dir) {
    assertThatThrownBy(() -> Injection.environment(dir.resolve("nope.so"), dir.resolve("t.gtrace")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope.so");
  }

  @Test
  void thePackagedLibraryIsExtractedToAFile(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(Injection.class.getResource(Injection.resource()) != null,
        "this build packaged no libgitm_inject.so (no CUDA toolkit at build time)");
    Path lib = Injection.extract(dir).orElseThrow();
    assertThat(lib).isRegularFile().hasFileName("libgitm_inject.so");
    assertThat(Files.size(lib)).isEqualTo(Files.size(BUILT));
  }
}
