package io.gitm.nvidia.cupti;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The CUPTI injection library for black-box processes ({@code libgitm_inject.so}, shipped in this jar under
 * {@code /native/<os>-<arch>/} where the build had the CUDA toolkit), and the environment that makes a child
 * process load it: the CUDA driver loads {@code CUDA_INJECTION64_PATH} at {@code cuInit}, and the library writes
 * its trace to {@code GITM_TRACE_OUT} when the process exits. What it traces is chosen by {@code GITM_TRACE_KINDS}
 * (default {@code kernel,memcpy,memset,sync,api}: device work plus only the API calls that launch, copy, set,
 * allocate, free or synchronize) and its clock by {@code GITM_TRACE_CLOCK}; both pass through the child's inherited
 * environment, and docs/nvidia-backend.md ("Tracing overhead") says what each costs.
 */
public final class Injection {
  static final String LIBRARY = "libgitm_inject.so";

  private Injection() {
  }

  /** The jar resource path for this machine's platform. */
  static String resource() {
    String arch = System.getProperty("os.arch");
    String plat = switch (arch) {
      case "amd64", "x86_64" -> "linux-x86_64";
      case "aarch64" -> "linux-aarch64";
      default -> "linux-" + arch;
    };
    return "/native/" + plat + "/" + LIBRARY;
  }

  /**
   * Copies the library out of the jar into {@code dir} (the driver needs a file) and returns its path; empty when
   * this build has none for this platform (built without the CUDA toolkit, or not Linux).
   */
  public static Optional<Path> extract(Path dir) throws IOException {
    try (InputStream in = Injection.class.getResourceAsStream(resource())) {
      if (in == null) {
        return Optional.empty();
      }
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, LIBRARY, ".tmp");
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      Path target = dir.resolve(LIBRARY);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return Optional.of(target);
    }
  }

  /**
   * The variables to add to a child's environment so that it is traced into {@code traceOut}; the trace appears
   * under that name only once the child exits normally ({@code traceOut + ".tmp"} until then).
   */
  public static Map<String, String> environment(Path library, Path traceOut) {
    if (!Files.isRegularFile(library)) {
      throw new IllegalArgumentException("injection library " + library + " is not a file");
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put("CUDA_INJECTION64_PATH", library.toAbsolutePath().toString());
    env.put("GITM_TRACE_OUT", traceOut.toAbsolutePath().toString());
    return env;
  }
}
