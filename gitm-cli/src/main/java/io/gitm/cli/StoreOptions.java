package io.gitm.cli;

import io.gitm.store.RunStore;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Where gitm keeps its data: {@code --scratch}, else {@code $GITM_SCRATCH}, else {@code ~/.cache/gitm}. */
final class StoreOptions {
  @Option(names = "--scratch", paramLabel = "DIR",
      description = "gitm's data folder (default: $GITM_SCRATCH, else ~/.cache/gitm).")
  String scratch;

  /** The store's folder; a blank {@code --scratch} or {@code GITM_SCRATCH} is bad usage, never the current folder. */
  Path root(CommandLine cl) {
    if (scratch != null) {
      if (scratch.isBlank()) {
        throw new CommandLine.ParameterException(cl, "--scratch is empty: give a folder for gitm's data");
      }
      return Path.of(scratch).toAbsolutePath();
    }
    String env = System.getenv("GITM_SCRATCH");
    if (env != null && env.isBlank()) {
      throw new CommandLine.ParameterException(cl, "GITM_SCRATCH is set but empty: unset it or give a folder");
    }
    return RunStore.defaultRoot(System.getenv());
  }

  boolean explicit() {
    return scratch != null || System.getenv("GITM_SCRATCH") != null;
  }

  /** Opens (creating where needed) the store; a failure is one line naming the folder. */
  RunStore open(CommandLine cl) {
    Path root = root(cl);
    try {
      return RunStore.open(root);
    } catch (IOException | RuntimeException e) {
      throw new CliFailure("cannot open the gitm store at " + root + ": " + describe(e), e);
    }
  }

  /** An I/O failure in words: the exception's kind where its message is only a path. */
  static String describe(Exception e) {
    String m = e.getMessage() == null ? "" : e.getMessage();
    return switch (e) {
      case java.nio.file.NoSuchFileException x -> "no such file or folder: " + m;
      case java.nio.file.AccessDeniedException x -> "permission denied: " + m;
      case java.nio.file.FileAlreadyExistsException x -> "a file stands where a folder is needed: " + m;
      case java.nio.file.NotDirectoryException x -> "not a folder: " + m;
      default -> Main.oneLine(m.isEmpty() ? e.toString() : m);
    };
  }
}
