package io.gitm.workloads.af2;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Supplier;

/**
 * An immutable, sha256-pinned alignment (A3M) or query (FASTA) in a dataset folder ({@code datasets/biotech/}):
 * {@code NAME} and its manifest {@code NAME.sha256} (one {@code sha256sum} line). A missing file is generated (when a
 * generator is given) and pinned; a file whose hash differs from its manifest, or that has no manifest, is refused.
 */
final class Af2Dataset {
  private Af2Dataset() {
  }

  /** The alignment read from {@code dir/name}, generated and pinned first when missing and a generator is given. */
  static Msa load(Path dir, String name, Supplier<byte[]> generator) {
    if (name.contains("/") || name.contains("\\") || name.startsWith(".")) {
      throw new IllegalArgumentException("af2: dataset name '" + name + "' must be a plain file name");
    }
    Path file = dir.resolve(name);
    Path manifest = dir.resolve(name + ".sha256");
    try {
      Files.createDirectories(dir);
      if (!Files.exists(file)) {
        if (generator == null) {
          throw new IllegalArgumentException("af2: dataset " + file + " does not exist");
        }
        byte[] bytes = generator.get();
        String sha = sha256(bytes);
        if (Files.exists(manifest) && !pinned(manifest, name).equals(sha)) {
          throw new IllegalStateException("af2: dataset " + file + " regenerated with sha256 " + sha + " but "
              + manifest + " pins " + pinned(manifest, name) + ": the generator changed; remove the manifest to"
              + " re-pin");
        }
        writeAtomically(file, bytes);
        if (!Files.exists(manifest)) {
          writeAtomically(manifest, (sha + "  " + name + "\n").getBytes(StandardCharsets.US_ASCII));
        }
      }
      if (!Files.exists(manifest)) {
        throw new IllegalStateException("af2: dataset " + file + " is not pinned: " + manifest
            + " is missing (write its sha256sum line there to pin it)");
      }
      byte[] bytes = Files.readAllBytes(file);
      String sha = sha256(bytes);
      String want = pinned(manifest, name);
      if (!sha.equals(want)) {
        throw new IllegalStateException("af2: dataset " + file + " changed: its sha256 is " + sha + " but " + manifest
            + " pins " + want + "; refusing it (datasets are immutable)");
      }
      return MsaReader.read(file);
    } catch (IOException e) {
      throw new UncheckedIOException("af2: dataset " + file + ": " + e.getMessage(), e);
    }
  }

  private static String pinned(Path manifest, String name) throws IOException {
    String line = Files.readString(manifest, StandardCharsets.US_ASCII).strip();
    String[] parts = line.split("\\s+", 2);
    if (parts.length != 2 || !parts[0].matches("[0-9a-f]{64}") || !parts[1].replaceFirst("^\\*", "").equals(name)) {
      throw new IllegalStateException("af2: manifest " + manifest + " is not one sha256sum line for " + name);
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

  /** Writes a whole file so that a crash leaves the old file or the new one: temp file, force, rename, force folder. */
  private static void writeAtomically(Path target, byte[] bytes) throws IOException {
    Path tmp = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      try {
        Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: keep the default permissions
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the file system of " + target.getParent() + " cannot rename atomically", e);
      }
      try (FileChannel d = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
        d.force(true);
      } catch (IOException | UnsupportedOperationException ignored) {
        // some platforms cannot open a folder; the rename itself is still atomic there
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
