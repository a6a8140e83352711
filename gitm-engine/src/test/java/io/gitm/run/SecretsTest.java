package io.gitm.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.job.ProcessMetric;
import io.gitm.job.ProcessSpec;
import io.gitm.store.RunDir;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a black-box run writes of its job's environment: names, never the values given with --env. */
class SecretsTest {
  private static ProcessSpec spec(Map<String, String> env) {
    return new ProcessSpec(List.of("/bin/true"), false, Path.of("/tmp"), env,
        new ProcessMetric(ProcessMetric.Kind.WALL, null, null, false, null), List.of(), 1e-3, 0, null);
  }

  @Test
  void processJsonAndTheReportNotesNameTheVariablesButHideTheirValuesWhichSecretsJsonKeeps() {
    ProcessTarget t = new ProcessTarget(spec(Map.of("PATH", "/usr/bin", "API_TOKEN", "hunter2")), null, "off", null,
        null, null, "none", List.of(), true);
    Map<String, Object> files = t.resumeFiles();
    assertThat(files.get(ProcessTarget.PROCESS_FILE).toString()).doesNotContain("hunter2")
        .contains("API_TOKEN=" + Secrets.REDACTED).contains("PATH=/usr/bin");
    assertThat(files.get(RunDir.SECRETS_FILE).toString()).contains("hunter2");
    @SuppressWarnings("unchecked")
    Map<String, Object> kept = (Map<String, Object>) files.get(RunDir.SECRETS_FILE);
    @SuppressWarnings("unchecked")
    Map<String, Object> process = (Map<String, Object>) files.get(ProcessTarget.PROCESS_FILE);
    assertThat(ProcessTarget.resumedSpec(process, kept).environment()).containsEntry("API_TOKEN", "hunter2")
        .containsEntry("PATH", "/usr/bin");
    assertThatThrownBy(() -> ProcessTarget.resumedSpec(process, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the values of API_TOKEN are not kept");
  }

  @Test
  void theCommandLineKeepsEachEnvNameButNotItsValueAndLeavesTheJobsArgumentsAlone() {
    assertThat(Secrets.redactCommandLine(List.of("run", "--env", "API_TOKEN=hunter2", "--env=K=v", "--env", "HOME",
        "--cmd", "job", "--env", "X=1"))).containsExactly("run", "--env", "API_TOKEN=" + Secrets.REDACTED,
        "--env=K=" + Secrets.REDACTED, "--env", "HOME", "--cmd", "job", "--env", "X=1");
  }
}
