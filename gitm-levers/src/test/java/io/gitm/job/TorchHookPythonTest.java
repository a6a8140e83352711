package io.gitm.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python hook's own tests (gitm-levers/src/test/python/test_torch_hook.py), run for real with Debian's PyTorch on
 * the hook as this build ships it ({@link TorchHook#install} from the jar's resources).
 */
class TorchHookPythonTest {
  @TempDir
  Path dir;

  @Test
  void theHooksOwnTestsPassInRealPyTorchPrograms() throws Exception {
    Path python = PythonTorch.require();
    TorchHook hook = TorchHook.install(dir.resolve("hook"));
    Path log = dir.resolve("unittest.log");
    ProcessBuilder pb = new ProcessBuilder(python.toString(), "-B", "-m", "unittest", "-v", "test_torch_hook")
        .directory(PythonTorch.tests().toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("GITM_TEST_HOOK", hook.python().toString());
    pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    Process p = pb.start();
    boolean ended = p.waitFor(20, TimeUnit.MINUTES);
    if (!ended) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String out = Files.readString(log);
    assertThat(ended).as("the hook's tests were still running after 20 minutes:\n" + out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("OK").doesNotContain("FAILED");
  }
}
