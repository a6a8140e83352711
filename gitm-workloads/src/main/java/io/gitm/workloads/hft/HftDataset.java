package io.gitm.workloads.hft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Supplier;

/**
 * An immutable, sha256-pinned ITCH file in a dataset folder ({@code datasets/hft/}): {@code NAME} and its manifest
 * {@code NAME.sha256} (one {@code sha256sum} line). A missing file is generated (when a generator is given) and
 * pinned; a file whose hash differs from its manifest, or that has no manifest, is refused.
 */
final class HftDataset {
  private HftDataset() {
  }

  /** The file and the hash it was verified against. */
  record Loaded(Path file, String sha256, ItchFile itch) {
  }

  static Loaded load(Path dir, String name, Supplier<byte[]> generator) {
    if (name.contains("/") || name.contains("\\") || name.startsWith(".")) {
      throw new IllegalArgumentException("dataset name '" + name + "' must be a plain file name");
    }
    Path file = dir.resolve(name);
    Path manifest = dir.resolve(name + ".sha256");
    try {
      Files.createDirectories(dir);
      byte[] bytes;
      if (Files.exists(file)) {
        bytes = Files.readAllBytes(file);
      } else if (generator != null) {
        bytes = generator.get();
        String sha = sha256(bytes);
        if (Files.exists(manifest) && !pinned(manifest, name).equals(sha)) {
          throw new IllegalStateException("dataset " + file + " regenerated with sha256 " + sha + " but " + manifest
              + " pins " + pinned(manifest, name) + ": the generator changed; remove the manifest to re-pin");
        }
        writeAtomically(file, bytes);
        if (!Files.exists(manifest)) {
          writeAtomically(manifest, (sha + "  " + name + "\n").getBytes(StandardCharsets.US_ASCII));
        }
      } else {
        throw new IllegalArgumentException("dataset " + file + " does not exist");
      }
      if (!Files.exists(manifest)) {
        throw new IllegalStateException("dataset " + file + " is not pinned: " + manifest
            + " is missing (write its sha256sum line there to pin it)");
      }
      String sha = sha256(bytes);
      String want = pinned(manifest, name);
      if (!sha.equals(want)) {
        throw new IllegalStateException("dataset " + file + " changed: its sha256 is " + sha + " but " + manifest
            + " pins " + want + "; refusing it (datasets are immutable: delete " + file.getFileName() + " and "
            + manifest.getFileName() + " to have a generated dataset made again)");
      }
      return new Loaded(file, sha, ItchReader.parse(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException("dataset " + file + ": " + e.getMessage(), e);
    }
  }

  private static String pinned(Path manifest, String name) throws IOException {
    String line = Files.readString(manifest, StandardCharsets.US_ASCII).strip();
    String[] parts = line.split("\\s+", 2);
    if (parts.length != 2 || !parts[0].matches("[0-9a-f]{64}") || !parts[1].replaceFirst("^\\*", "").equals(name)) {
      throw new IllegalStateException("manifest " + manifest + " is not one sha256sum line for " + name);
    }
    return parts[0];
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
  }

  /**
   * Writes a whole file so that a crash leaves the old file or the new one, never a part: a temporary file beside
   * it, forced to disk, renamed over it, and the folder's entry forced.
   */
  private static void writeAtomically(Path target, byte[] bytes) throws IOException {
    Path tmp = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".tmp");
    try {
      try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(tmp,
          java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      try {
        // Readable by all (a dataset is shared), writable by its owner only.
        Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: keep the default permissions
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the file system of " + target.getParent() + " cannot rename atomically", e);
      }
      try (java.nio.channels.FileChannel d = java.nio.channels.FileChannel.open(target.getParent(),
          java.nio.file.StandardOpenOption.READ)) {
        d.force(true);
      } catch (IOException | UnsupportedOperationException ignored) {
        // some platforms cannot open a folder; the rename itself is still atomic there
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
