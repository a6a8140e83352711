package io.gitm.workloads.af2;

import io.gitm.workloads.kit.PinnedDatasets;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * An immutable, sha256-pinned alignment (A3M) or query (FASTA) in a dataset folder ({@code datasets/biotech/}):
 * {@code NAME} and its manifest {@code NAME.sha256} (one {@code sha256sum} line). A missing file is generated (when a
 * generator is given) and pinned; a file whose hash differs from its manifest, or that has no manifest, is refused.
 */
final class Af2Dataset {
  private static final PinnedDatasets PINS = new PinnedDatasets("af2: ", false);

  private Af2Dataset() {
  }

  /** The alignment read from {@code dir/name}, generated and pinned first when missing and a generator is given. */
  static Msa load(Path dir, String name, Supplier<byte[]> generator) {
    return MsaReader.read(PINS.fetch(dir, name, generator).file());
  }

  static String sha256(byte[] bytes) {
    return PinnedDatasets.sha256(bytes);
  }
}
