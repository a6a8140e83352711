package io.gitm.run;

import io.gitm.job.ProcessSpec;
import io.gitm.job.output.OutputFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The job's output files that exist before its first run: the user's, which the job's runs would overwrite. They are
 * moved to the run folder's {@value #FOLDER}/ before the profile and said so in the report, and put back where they
 * were when the run stops before its baseline is measured.
 */
final class PreexistingOutputs {
  static final String FOLDER = "preexisting-outputs";

  private final ProcessSpec spec;
  private final Path folder;
  /** Where each moved file was, and where it is now. */
  private final Map<Path, Path> moved = new LinkedHashMap<>();

  PreexistingOutputs(ProcessSpec spec, Path runDir) {
    this.spec = spec;
    this.folder = runDir.resolve(FOLDER);
  }

  Path folder() {
    return folder;
  }

  /** Where each moved file was. */
  List<Path> moved() {
    return List.copyOf(moved.keySet());
  }

  /** Moves the outputs that exist now into {@link #folder()}. */
  void moveAside() throws IOException {
    for (OutputFile o : spec.outputs()) {
      Path f = spec.workdir().resolve(o.path()).normalize();
      if (Files.isRegularFile(f) && !moved.containsKey(f)) {
        Files.createDirectories(folder);
        String name = f.getFileName().toString();
        Path target = folder.resolve(moved.isEmpty() ? name : moved.size() + "-" + name);
        Files.move(f, target, StandardCopyOption.REPLACE_EXISTING);
        moved.put(f, target);
      }
    }
  }

  /** The moved files in words: {@code the output file out.npy}, {@code the output files a.npy, b.csv}. */
  String describe() {
    return (moved.size() == 1 ? "the output file " : "the output files ")
        + moved.keySet().stream().map(Path::toString).collect(Collectors.joining(", "));
  }

  /**
   * Puts every moved file back where it was (over what a failed run left there) and says so, as a clause to add to
   * a failure's message ({@code "; the output file out.npy that existed before the run was put back"}); empty when
   * nothing was moved.
   */
  String putBack() {
    if (moved.isEmpty()) {
      return "";
    }
    List<String> failed = new ArrayList<>();
    for (Map.Entry<Path, Path> m : moved.entrySet()) {
      try {
        Files.move(m.getValue(), m.getKey(), StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        failed.add(m.getKey() + " (still at " + m.getValue() + ": " + Failures.describe(e) + ")");
      }
    }
    String what = describe();
    moved.clear();
    return failed.isEmpty() ? "; " + what + " that existed before the run " + (what.contains("files") ? "were" : "was")
        + " put back" : "; " + what + " that existed before the run could not all be put back: "
        + String.join(", ", failed);
  }
}
