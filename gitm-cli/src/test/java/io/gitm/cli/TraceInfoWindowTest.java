package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.testkit.Fixtures;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code gitm trace info --window} on a real PyTorch profiler trace (two streams, six ProfilerStep annotations): the
 * window is placed as {@code gitm analyze} places it and stated. The counts were computed from the Kineto JSON with
 * Python alone: the device operations whose launch call started from the start of ProfilerStep#1 to the end of #5 (50
 * kernels, 10 copies, 5 memsets), against 51, 10 and 5 in the whole file.
 */
class TraceInfoWindowTest {
  @TempDir
  Path dir;

  private Path imported() throws Exception {
    Path trace = Fixtures.file("/tracer/real/kineto/two-streams.pt.trace.json.gz");
    Path out = dir.resolve("t.gtrace");
    CliResult r = CliResult.run("trace", "import", trace.toString(), "-o", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    return out;
  }

  @Test
  void theStepsWindowHoldsTheDeviceOperationsLaunchedInTheStepsButTheLast() throws Exception {
    Path t = imported();
    JsonNode steps = Json.MAPPER.readTree(CliResult.run("trace", "info", t.toString(), "--window", "steps", "--json")
        .out());
    assertThat(steps.get("window").asString()).startsWith("steps").contains("5 of 6 steps");
    JsonNode c = steps.get("recordCounts");
    assertThat(new long[] {c.get("kernel").asLong(), c.get("copy").asLong(), c.get("memset").asLong()})
        .containsExactly(50, 10, 5);

    JsonNode whole = Json.MAPPER.readTree(CliResult.run("trace", "info", t.toString(), "--json").out());
    assertThat(whole.get("window").asString()).isEqualTo("the whole file (no --window)");
    assertThat(whole.get("recordCounts").get("kernel").asLong()).isEqualTo(51);

    CliResult text = CliResult.run("trace", "info", t.toString(), "--window", "2:3");
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out()).contains("window       2:3: ProfilerStep#2 to #3, 2 of 6 steps");
  }

  @Test
  void aWindowOutsideTheTraceIsRefusedInOneLine() throws Exception {
    CliResult r = CliResult.run("trace", "info", imported().toString(), "--window", "9:12");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.errorLine()).startsWith("gitm: --window 9:12: ").contains("t.gtrace");
    assertThat(r.err().lines().count()).isLessThanOrEqualTo(2);
  }
}
