package io.gitm.cli;

import io.gitm.store.RunStore;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where gitm keeps its data: {@code --scratch}, else {@code $GITM_SCRATCH}, else {@code ~/.cache/gitm}. */
final class StoreOptions {
  @Option(names = "--scratch", paramLabel = "DIR", description = "gitm's data folder (default: $GITM_SCRATCH, else ~/.cache/gitm).")
  Path scratch;

  Path root() {
    return scratch != null ? scratch.toAbsolutePath() : RunStore.defaultRoot(System.getenv());
  }

  boolean explicit() {
    return scratch != null || System.getenv("GITM_SCRATCH") != null;
  }
}
