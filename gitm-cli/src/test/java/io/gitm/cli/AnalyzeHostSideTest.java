package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code gitm analyze} on a real PyTorch profiler trace shows its critical path and its NCCL collectives. */
class AnalyzeHostSideTest {
  private static final Path NCCL =
      Path.of("../gitm-trace/src/test/resources/tracer/real/kineto/nccl-one-rank.pt.trace.json.gz");

  @TempDir
  Path dir;

  private CliResult analyze(String... more) {
    String[] args = new String[3 + more.length];
    args[0] = "analyze";
    args[1] = NCCL.toString();
    args[2] = "--scratch=" + dir.resolve("store");
    System.arraycopy(more, 0, args, 3, more.length);
    return CliResult.run(args);
  }

  @Test
  void theTextNamesTheWindowThePathsSharesAndEachCollective() {
    CliResult r = analyze();

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("[window steps (the default: the trace has ProfilerStep annotations): ProfilerStep#1 to #5,"
            + " 5 of 6 steps, the last (usually partial) step left out]")
        .contains("  shares  host op ")
        // the window holds 5 of the 6 all_reduces, of 4 Mi floats each; the sixth lasted 70.069 µs of 562.474
        .contains("nccl      allreduce ×5 on group 0 (default_pg, ranks [0], size 1), Float: 20971520 elements in,"
            + " 20971520 out (80.0 MiB in, 80.0 MiB out); host 0.492 ms, no kernel")
        .contains("nccl      broadcast ×5").contains("nccl      _allgather_base ×5");
  }

  @Test
  void theJsonHoldsThePathByKindOfEdgeAndTheCollectives() throws Exception {
    CliResult r = analyze("--json");

    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = Json.MAPPER.readTree(r.out());
    JsonNode p = j.get("criticalPath");
    assertThat(p.get("window").asString()).contains("5 of 6 steps, the last (usually partial) step left out");
    long length = p.get("lengthNs").asLong();
    assertThat(length).isPositive().isLessThanOrEqualTo(p.get("toNs").asLong() - p.get("fromNs").asLong());
    long sum = 0;
    for (String k : new String[] {"HOST_OP", "LAUNCH", "KERNEL", "SYNC", "IDLE", "DEPENDENCY"}) {
      sum += p.get("byKind").get(k).get("ns").asLong();
    }
    assertThat(sum).isEqualTo(length);
    assertThat(j.get("collectives").get("window").asString())
        .contains("5 of 6 steps, the last (usually partial) step left out");
    assertThat(j.get("collectives").get("byCollective")).hasSize(3);
    JsonNode c = j.get("collectives").get("byCollective").get(1);
    assertThat(c.get("name").asString()).isEqualTo("allreduce");
    assertThat(c.get("count").asInt()).isEqualTo(5);
    assertThat(c.get("group").get("description").asString()).isEqualTo("default_pg");
    assertThat(c.get("inBytes").asLong()).isEqualTo(83_886_080L);
  }
}
