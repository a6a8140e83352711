package io.gitm.workloads.hft;

import io.gitm.workloads.kit.PinnedDatasets;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * An immutable, sha256-pinned ITCH file in a dataset folder ({@code datasets/hft/}): {@code NAME} and its manifest
 * {@code NAME.sha256} (one {@code sha256sum} line). A missing file is generated (when a generator is given) and
 * pinned; a file whose hash differs from its manifest, or that has no manifest, is refused.
 */
final class HftDataset {
  private static final PinnedDatasets PINS = new PinnedDatasets("", true);

  private HftDataset() {
  }

  /** The file and the hash it was verified against. */
  record Loaded(Path file, String sha256, ItchFile itch) {
  }

  static Loaded load(Path dir, String name, Supplier<byte[]> generator) {
    PinnedDatasets.Fetched f = PINS.fetch(dir, name, generator);
    return new Loaded(f.file(), f.sha256(), ItchReader.parse(f.bytes()));
  }

  static String sha256(byte[] bytes) {
    return PinnedDatasets.sha256(bytes);
  }
}
