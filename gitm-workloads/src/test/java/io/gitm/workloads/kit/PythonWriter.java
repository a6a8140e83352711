package io.gitm.workloads.kit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A test input written by an independent Python script (the tests' {@code *_gen.py}, standard library alone): runs
 * {@code python3 SCRIPT OUT ARGS...} and returns the "key value" lines it prints about what it wrote.
 */
public final class PythonWriter {
  private PythonWriter() {}

  /** Runs the script {@code resource} found beside {@code owner}'s class file. */
  public static Map<String, String> write(Class<?> owner, String resource, Path out, String... args)
      throws IOException, InterruptedException {
    try {
      return write(Path.of(owner.getResource(resource).toURI()), out, args);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Map<String, String> write(Path script, Path out, String... args) throws IOException,
      InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("python3", script.toString(), out.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String text;
    try (InputStream in = p.getInputStream()) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(p.waitFor()).as("%s (python3 is needed for this test)", script.getFileName()).isZero();
    Map<String, String> m = new HashMap<>();
    text.lines().filter(l -> !l.isBlank()).map(l -> l.split(" ", 2)).forEach(kv -> m.put(kv[0], kv[1]));
    return m;
  }
}
