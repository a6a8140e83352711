package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RunArgumentsTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "empty budget        | --budget=       | --target=15% | budget is empty",
      "zero budget         | --budget=0s     | --target=15% | is zero",
      "negative budget     | --budget=-5m    | --target=15% | is negative",
      "non-numeric budget  | --budget=soon   | --target=15% | is not a duration",
      "unknown unit        | --budget=24x    | --target=15% | unknown unit 'x'",
      "too short budget    | --budget=10s    | --target=15% | minimum is 30s",
      "empty target        | --budget=2m     | --target=    | target is empty",
      "zero target         | --budget=2m     | --target=0   | out of range",
      "negative target     | --budget=2m     | --target=-5% | out of range",
      "past ten times      | --budget=2m     | --target=1001% | out of range",
      "non-numeric target  | --budget=2m     | --target=lots | is not a number",
  })
  void badBudgetOrTargetIsAOneLineUsageError(String name, String budget, String target, String message) {
    CliResult r = CliResult.run("run", "--workload", "hft-lob", budget, target);
    assertThat(r.code()).as(r.err()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).startsWith("gitm: ").contains(message);
    assertThat(r.err().lines().count()).isEqualTo(2);
  }

  @Test
  void unknownWorkloadListsTheKnownOnes() {
    CliResult r = CliResult.run("run", "--workload", "no-such-job", "--budget", "2m", "--target", "15%");
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("unknown workload 'no-such-job'").contains("known workloads:");
  }

  @Test
  void benchWithoutTheBenchExtraSaysHowToGetIt() {
    CliResult r = CliResult.run("bench");
    assertThat(r.code()).isEqualTo(Main.FAILURE);
    assertThat(r.errorLine()).contains("the bench extra is not on the class path");
  }

  @Test
  void missingWorkloadIsAUsageError() {
    CliResult r = CliResult.run("run", "--budget", "2m", "--target", "15%");
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("--workload (or --cmd PROGRAM ...) is required");
  }

  @Test
  void unknownOptionIsAUsageError() {
    CliResult r = CliResult.run("run", "--frobnicate");
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("--frobnicate");
  }

  @Test
  void noCommandIsAUsageError() {
    assertThat(CliResult.run().code()).isEqualTo(Main.USAGE);
  }

  @Test
  void everyCommandHasHelp() {
    for (String c : new String[] {"run", "doctor", "version"}) {
      CliResult r = CliResult.run(c, "--help");
      assertThat(r.code()).isZero();
      assertThat(r.out()).contains("Usage: gitm " + c);
    }
  }

  @Test
  void helpDocumentsExitCodes() {
    CliResult r = CliResult.run("--help");
    assertThat(r.out()).contains("Exit codes:").contains("2   bad usage");
  }
}
