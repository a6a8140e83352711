package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.testkit.Fixtures;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code gitm analyze} on a real PyTorch profiler trace (two streams, six ProfilerStep annotations): the window it
 * took is stated in the text and in {@code --json}, and so are the breakdowns (their values are pinned in
 * gitm-analysis's BreakdownOnRealTracesTest against an independent computation).
 */
class AnalyzeBreakdownTest {
  @TempDir
  Path dir;

  private CliResult analyze(String... more) throws Exception {
    return analyzeJob("two-streams", more);
  }

  private CliResult analyzeJob(String job, String... more) throws Exception {
    Path trace = Fixtures.file("/tracer/real/kineto/" + job + ".pt.trace.json.gz");
    String[] args = new String[4 + more.length];
    args[0] = "analyze";
    args[1] = trace.toString();
    args[2] = "--scratch";
    args[3] = dir.resolve("store").toString();
    System.arraycopy(more, 0, args, 4, more.length);
    return CliResult.run(args);
  }

  @Test
  void theDefaultWindowIsTheStepsButTheLastAndTheTextSaysSo() throws Exception {
    CliResult r = analyze();
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("window    steps (the default: the trace has ProfilerStep annotations):"
        + " ProfilerStep#1 to #5, 5 of 6 steps, the last (usually partial) step left out",
        "breakdowns (HTA's definitions, exact ns; window steps, 65 device operations)",
        "  temporal      span 16.332 ms: idle 2.027 ms (12.41%), compute 13.703 ms (83.90%), non-compute 0.602 ms"
            + " (3.69%)",
        "  kernel types  COMPUTATION 8.103 ms (56.6%), COMPUTATION overlapping MEMORY 5.599 ms (39.1%), MEMORY"
            + " 0.602 ms (4.2%)",
        "  idle          device 0 stream 14: 8.007 ms = host wait 7.976 + kernel wait 0.031 (gaps < 30 µs) + other"
            + " 0.000 ms, 19 gaps",
        "breakdowns and the ranked causes");
  }

  @Test
  void theJsonStatesTheWindowAndEveryBreakdown() throws Exception {
    JsonNode j = Json.MAPPER.readTree(analyze("--json").out());
    assertThat(j.get("window").get("spec").asString()).isEqualTo("steps");
    assertThat(j.get("window").get("steps").asInt()).isEqualTo(5);
    JsonNode b = j.get("breakdowns");
    assertThat(b.get("temporal").get("idleNs").asLong()).isEqualTo(2026944);
    assertThat(b.get("commCompOverlap").isNull()).isTrue();
    assertThat(b.get("idle").size()).isEqualTo(3);
    assertThat(b.get("queueLength").get(2).get("p50").asDouble()).isEqualTo(1.5);
    assertThat(b.get("kernelTypes").get(1).get("type").asString()).isEqualTo("COMPUTATION overlapping MEMORY");
    assertThat(j.get("breakdownTies").get(0).get("figure").asString()).isEqualTo("idle");
  }

  @Test
  void theInvariantsAndCausesAreOfTheWindowToo() throws Exception {
    // on this one-stream trace the analysis's own idle split equals the breakdown's
    JsonNode steps = Json.MAPPER.readTree(analyzeJob("single-stream-mlp", "--json").out());
    assertThat(steps.get("nodes").asInt()).isEqualTo(215);
    assertThat(steps.get("idle").get("hostWaitNs").asLong()).isEqualTo(17120108);
    assertThat(steps.get("idle").get("kernelWaitNs").asLong()).isEqualTo(137188);
    JsonNode all = Json.MAPPER.readTree(analyzeJob("single-stream-mlp", "--window", "all", "--json").out());
    assertThat(all.get("nodes").asInt()).isEqualTo(223);
    assertThat(all.get("idle").get("hostWaitNs").asLong()).isEqualTo(17626636);
  }

  @Test
  void theWholeTraceIsOneOptionAway() throws Exception {
    JsonNode j = Json.MAPPER.readTree(analyze("--window", "all", "--json").out());
    assertThat(j.get("window").get("spec").asString()).isEqualTo("all");
    assertThat(j.get("window").get("toNs").isNull()).isTrue();
    assertThat(j.get("breakdowns").get("temporal").get("spanNs").asLong()).isEqualTo(17046088);
    JsonNode two = Json.MAPPER.readTree(analyze("--window", "2:3", "--json").out());
    assertThat(two.get("window").get("steps").asInt()).isEqualTo(2);
    assertThat(two.get("breakdowns").get("ops").asInt()).isEqualTo(26);
  }
}
