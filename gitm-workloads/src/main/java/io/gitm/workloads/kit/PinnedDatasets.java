package io.gitm.workloads.kit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Supplier;

/**
 * Immutable, sha256-pinned files in a workload's dataset folder: {@code NAME} and its manifest {@code NAME.sha256}
 * (one {@code sha256sum} line). A missing file is generated (when a generator is given) and pinned; a file whose
 * hash differs from its manifest, or that has no manifest, is refused.
 *
 * @param prefix what the workload's messages start with ({@code "af2: "}, or empty)
 * @param regenerable whether a refusal says how to have a generated dataset made again
 */
public record PinnedDatasets(String prefix, boolean regenerable) {
  /** A verified file: its path, its bytes and their sha256. */
  public record Fetched(Path file, byte[] bytes, String sha256) {
  }

  /** The verified bytes of {@code dir/name}, generated and pinned first when missing and a generator is given. */
  public Fetched fetch(Path dir, String name, Supplier<byte[]> generator) {
    if (name.contains("/") || name.contains("\\") || name.startsWith(".")) {
      throw new IllegalArgumentException(prefix + "dataset name '" + name + "' must be a plain file name");
    }
    Path file = dir.resolve(name);
    Path manifest = dir.resolve(name + ".sha256");
    try {
      Files.createDirectories(dir);
      byte[] bytes;
      if (Files.exists(file)) {
        bytes = Files.readAllBytes(file);
      } else if (generator != null) {
        bytes = generate(file, manifest, name, generator);
      } else {
        throw new IllegalArgumentException(prefix + "dataset " + file + " does not exist");
      }
      if (!Files.exists(manifest)) {
        throw new IllegalStateException(prefix + "dataset " + file + " is not pinned: " + manifest
            + " is missing (write its sha256sum line there to pin it)");
      }
      String sha = sha256(bytes);
      String want = pinned(manifest, name);
      if (!sha.equals(want)) {
        throw new IllegalStateException(prefix + "dataset " + file + " changed: its sha256 is " + sha + " but "
            + manifest + " pins " + want + "; refusing it (datasets are immutable" + (regenerable ? ": delete "
            + file.getFileName() + " and " + manifest.getFileName() + " to have a generated dataset made again" : "")
            + ")");
      }
      return new Fetched(file, bytes, sha);
    } catch (IOException e) {
      throw new UncheckedIOException(prefix + "dataset " + file + ": " + e.getMessage(), e);
    }
  }

  /** Generates the missing {@code file}, writes it and pins it where no manifest does; returns its bytes. */
  private byte[] generate(Path file, Path manifest, String name, Supplier<byte[]> generator) throws IOException {
    byte[] bytes = generator.get();
    String sha = sha256(bytes);
    if (Files.exists(manifest) && !pinned(manifest, name).equals(sha)) {
      throw new IllegalStateException(prefix + "dataset " + file + " regenerated with sha256 " + sha + " but "
          + manifest + " pins " + pinned(manifest, name) + ": the generator changed; remove the manifest to re-pin");
    }
    writeAtomically(file, bytes);
    if (!Files.exists(manifest)) {
      writeAtomically(manifest, (sha + "  " + name + "\n").getBytes(StandardCharsets.US_ASCII));
    }
    return bytes;
  }

  private String pinned(Path manifest, String name) throws IOException {
    String line = Files.readString(manifest, StandardCharsets.US_ASCII).strip();
    String[] parts = line.split("\\s+", 2);
    if (parts.length != 2 || !parts[0].matches("[0-9a-f]{64}") || !parts[1].replaceFirst("^\\*", "").equals(name)) {
      throw new IllegalStateException(prefix + "manifest " + manifest + " is not one sha256sum line for " + name);
    }
    return parts[0];
  }

  /** The lower-case hex SHA-256 of {@code bytes}. */
  public static String sha256(byte[] bytes) {
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
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      try {
        // Readable by all (a dataset is shared), writable by its owner only.
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
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
