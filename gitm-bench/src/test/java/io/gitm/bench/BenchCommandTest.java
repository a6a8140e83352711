package io.gitm.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gitm bench}, the bench extra, found by gitm's CLI on the class path as a user runs it. */
class BenchCommandTest {
  @TempDir
  Path dir;

  private record Result(int code, String out, String err) {}

  private static Result gitm(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(new PrintWriter(out), new PrintWriter(err), args);
    return new Result(code, out.toString(), err.toString());
  }

  @Test
  void benchWritesOneRowPerWorkloadWithItsShippedAndOptimizedFigures() throws Exception {
    Path table = dir.resolve("bench.md");
    Result r = gitm("bench", "--workloads", "hft-lob", "--budget", "30s", "--device", "sim", "--scenarios", "0",
        "--scratch", dir.resolve("s").toString(), "-o", table.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("| hft-lob | Simulated").contains("messages/s").doesNotContain("## Search");
    assertThat(table).hasContent(r.out().strip());
    try (var runs = Files.list(dir.resolve("s/runs"))) {
      assertThat(runs.count()).isEqualTo(1);
    }
  }

  @Test
  void badOptionsAreOneLineUsageErrors() {
    Result scenarios = gitm("bench", "--scenarios", "99");
    assertThat(scenarios.code()).isEqualTo(Main.USAGE);
    assertThat(scenarios.err()).startsWith("gitm: --scenarios must be 0 to 16, got 99");
    Result unknown = gitm("bench", "--workloads", "nope", "--scenarios", "0");
    assertThat(unknown.code()).isEqualTo(Main.USAGE);
    assertThat(unknown.err()).contains("unknown workload 'nope'");
    Result folder = gitm("bench", "--out", dir.resolve("no/such/bench.md").toString());
    assertThat(folder.code()).isEqualTo(Main.USAGE);
    assertThat(folder.err()).contains("no folder");
  }

  @Test
  void benchRunsTheOneWorkloadNamedOnTheUsersInput() throws Exception {
    Path itch = dir.resolve("day.itch.gz");
    io.gitm.workloads.hft.ItchSamples.write(itch, 3, 64, 40_000, true);
    Result r = gitm("bench", "--workloads", "hft-lob", "--input", itch.toString(), "--input-arg=--symbols=" + symbol0(),
        "--budget", "30s", "--device", "sim", "--scenarios", "0", "--scratch", dir.resolve("s").toString());
    assertThat(r.code()).as(r.err()).isZero();
    try (var runs = Files.list(dir.resolve("s/runs"))) {
      Path run = runs.findFirst().orElseThrow();
      assertThat(Files.readString(run.resolve("input.json"))).contains("\"format\" : \"ITCH 5.0, gzip, 2-byte"
          + " length prefixes\"").contains("\"instruments\" : 1");
    }
    Result two = gitm("bench", "--workloads", "hft-lob,af2", "--input", itch.toString(), "--scenarios", "0");
    assertThat(two.code()).isEqualTo(Main.USAGE);
    assertThat(two.err()).contains("--input is one workload's");
  }

  /** The first stock of a generated directory, as its generator names stocks. */
  private static String symbol0() {
    return "A";
  }
}
