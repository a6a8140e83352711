package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.workload.Workload;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HelpTest {

  @Test
  void anUnknownCommandWithHelpIsAUsageErrorOnOneLine() {
    CliResult r = CliResult.run("frobnicate", "--help");
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.errorLine()).startsWith("gitm: unknown command 'frobnicate' for 'gitm'; commands: ")
        .contains("run").contains("trace");
  }

  @Test
  void anUnknownCommandIsAUsageError() {
    CliResult r = CliResult.run("frobnicate");
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("unknown command 'frobnicate'");
  }

  @Test
  void anUnknownTraceCommandWithHelpIsAUsageError() {
    CliResult r = CliResult.run("trace", "frobnicate", "--help");
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("unknown command 'frobnicate' for 'gitm trace'").contains("import");
  }

  @Test
  void aStrayArgumentWithHelpIsAUsageError() {
    CliResult r = CliResult.run("version", "extra", "--help");
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.errorLine()).contains("extra");
  }

  @ParameterizedTest
  @ValueSource(strings = {"run", "plan", "levers"})
  void aCommandThatTakesAWorkloadListsEveryWorkloadOnTheClassPath(String command) {
    List<String> names = Workloads.all().stream().map(Workload::spec).map(s -> s.name()).toList();
    assertThat(names).isNotEmpty();
    CliResult r = CliResult.run(command, "--help");
    assertThat(r.code()).isZero();
    assertThat(flat(r.out())).contains(flat("workload: " + String.join(", ", names.stream().sorted().toList())));
  }

  @Test
  void theTraceCommandsListTheFormatsTheyTake() {
    for (TraceFormat f : TraceFormat.values()) {
      String help = helpOf(f == TraceFormat.PERFETTO ? "export"
          : f == TraceFormat.KINETO || f == TraceFormat.NSYS ? "import" : "info");
      assertThat(help).contains(flat(f.label()));
    }
    assertThat(helpOf(null, "analyze")).contains(flat(TraceFormat.GTRACE.label()))
        .contains(flat(TraceFormat.KINETO.label())).contains(flat(TraceFormat.NSYS.label()))
        .doesNotContain(flat(TraceFormat.PERFETTO.label()));
  }

  private static String helpOf(String traceCommand) {
    return helpOf("trace", traceCommand);
  }

  private static String helpOf(String command, String sub) {
    CliResult r = command == null ? CliResult.run(sub, "--help") : CliResult.run(command, sub, "--help");
    assertThat(r.code()).isZero();
    return flat(r.out());
  }

  /** The help without its white space: picocli wraps lines inside file names. */
  private static String flat(String s) {
    return s.replaceAll("\\s+", "");
  }
}
