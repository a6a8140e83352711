package io.gitm.tracer;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Publishing a file atomically: the content is written to {@code <file>.tmp}, forced to disk, and renamed to the
 * final name, so that the final name never holds a half-written file.
 */
final class AtomicFiles {
  private AtomicFiles() {}

  /** The temporary sibling a file is written to before it is published. */
  static Path temporary(Path file) {
    return file.resolveSibling(file.getFileName() + ".tmp");
  }

  /** Renames the (already forced) temporary file over {@code file} and forces the directory entry. */
  static void publish(Path tmp, Path file) throws IOException {
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot publish " + file + " atomically: " + e.getMessage(), e);
    }
    forceDirectory(file.toAbsolutePath().getParent());
  }

  /** Deletes a temporary file, ignoring failures (used on a path that is already failing). */
  static void discard(Path tmp) {
    try {
      Files.deleteIfExists(tmp);
    } catch (IOException ignored) {
      // the caller reports the original failure
    }
  }

  private static void forceDirectory(Path dir) {
    if (dir == null) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | UnsupportedOperationException ignored) {
      // Some platforms cannot open or force a directory; the rename itself is still atomic there.
    }
  }
}
