package io.gitm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Budget;
import io.gitm.samples.ScaleEngine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitmTest {
  @TempDir
  Path store;

  @Test
  void aBudgetTooShortForTheFivePhasesIsRefusedAsTheCliRefusesIt() {
    assertThatThrownBy(() -> Gitm.optimize(new ScaleEngine(), Budget.parse("5s"), 0.15,
        Gitm.Options.defaults().withDevice("sim", java.util.Map.of()).withStore(store)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("budget 5s is too short to hold the five phases: the minimum is 30s");
  }

  @Test
  void theVersionNamesTheGitCommitTheBuildWasMadeFrom() throws Exception {
    Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
    String head = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(git.waitFor()).as("these tests run inside the project's git checkout").isZero();
    assertThat(Gitm.version()).matches(".+ \\(git " + head + "(\\+dirty)?\\)");
  }
}
