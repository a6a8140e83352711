package io.gitm.store;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Looks through a store for what does not belong or cannot be read. It reports; it never deletes or changes
 * anything, since a file gitm does not recognise may be someone's data.
 */
public final class StoreScan {
  /** One thing found. */
  public record Finding(Path path, Kind kind, String detail) {}

  public enum Kind {
    /** The file or folder cannot be read. */
    UNREADABLE,
    /** Not part of gitm's layout. */
    FOREIGN,
    /** A temporary file left by an interrupted atomic write. */
    INCOMPLETE_WRITE,
    /** Part of the layout but its content does not parse. */
    CORRUPT
  }

  private StoreScan() {}

  public static List<Finding> scan(RunStore store) throws IOException {
    List<Finding> out = new ArrayList<>();
    Path root = store.root();
    try (var s = Files.list(root)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String n = p.getFileName().toString();
        if (!RunStore.TOP_LEVEL.contains(n)) {
          out.add(new Finding(p, Kind.FOREIGN,
              "not part of the store's layout (" + String.join(", ", RunStore.TOP_LEVEL) + ")"));
        }
      }
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        if (!Files.isReadable(dir) || !Files.isExecutable(dir)) {
          out.add(new Finding(dir, Kind.UNREADABLE, "folder cannot be read"));
          return FileVisitResult.SKIP_SUBTREE;
        }
        if (dir.getParent() != null && dir.getParent().equals(store.runs())) {
          Path run = dir.resolve(RunDir.RUN_FILE);
          if (!Files.exists(run)) {
            out.add(new Finding(dir, Kind.FOREIGN, "a folder under runs/ without " + RunDir.RUN_FILE));
          } else {
            try {
              RunDir.open(dir);
            } catch (IOException e) {
              out.add(new Finding(run, Kind.CORRUPT, e.getMessage()));
            }
            Path j = dir.resolve(RunDir.JOURNAL_FILE);
            if (Files.exists(j)) {
              try {
                String torn = Journal.read(j).tornTail();
                if (torn != null) {
                  out.add(new Finding(j, Kind.INCOMPLETE_WRITE, torn));
                }
              } catch (IOException e) {
                out.add(new Finding(j, Kind.CORRUPT, e.getMessage()));
              }
            }
          }
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (!Files.isReadable(file)) {
          out.add(new Finding(file, Kind.UNREADABLE, "file cannot be read"));
        } else if (file.getFileName().toString().endsWith(AtomicFiles.TMP_SUFFIX)) {
          out.add(new Finding(file, Kind.INCOMPLETE_WRITE,
              "left by an interrupted write; the file it was meant to replace is intact"));
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException exc) {
        out.add(new Finding(file, Kind.UNREADABLE, exc.getMessage()));
        return FileVisitResult.CONTINUE;
      }
    });
    return out;
  }
}
