package io.gitm.tracer;

import io.gitm.store.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The temporary files an atomic write of {@code name} left in a folder. */
final class TmpFiles {
  private TmpFiles() {}

  static List<Path> of(Path dir, String name) {
    try (var s = Files.list(dir)) {
      return s.filter(p -> {
        String n = p.getFileName().toString();
        return n.startsWith(name + ".") && n.endsWith(AtomicFiles.TMP_SUFFIX);
      }).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
