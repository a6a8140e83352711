package io.gitm.store;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Whole-file writes that a crash cannot leave half-done: the bytes go to a temporary file beside the target, which
 * is forced to disk and then renamed over the target, and the directory entry is forced too. A reader sees the old
 * file or the new one, never a part. The files are the user's alone (mode 0600 where the file system has POSIX
 * modes), whatever the umask: run folders hold commands, environments and measurements.
 */
public final class AtomicFiles {
  /** Suffix of temporary files; a leftover one is an interrupted write, reported by {@link StoreScan}. */
  public static final String TMP_SUFFIX = ".tmp";
  private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_FOLDER = PosixFilePermissions.fromString("rwx------");

  private AtomicFiles() {}

  public static void write(Path target, byte[] bytes) throws IOException {
    try (Pending out = open(target)) {
      out.write(bytes);
      out.commit();
    }
  }

  public static void writeString(Path target, String text) throws IOException {
    write(target, text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * A stream whose bytes replace {@code target} atomically on {@link Pending#commit()}. Closing it without a commit
   * (a write failed, an exception escaped the try-with-resources) discards what was written: the target is left as
   * it was.
   */
  public static Pending open(Path target) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = dir.resolve("." + target.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong())
        + TMP_SUFFIX);
    FileChannel ch = FileChannel.open(tmp, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
        privateFile(dir));
    return new Pending(target, tmp, ch);
  }

  /**
   * The attributes that create a file readable and writable by its owner only (0600; the umask can only take bits
   * away), or none where {@code near}'s file system has no POSIX modes.
   */
  public static FileAttribute<?>[] privateFile(Path near) {
    return posix(near) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_FILE)}
        : new FileAttribute<?>[0];
  }

  /** As {@link #privateFile}, for a folder (0700). */
  public static FileAttribute<?>[] privateFolder(Path near) {
    return posix(near) ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_FOLDER)}
        : new FileAttribute<?>[0];
  }

  private static boolean posix(Path near) {
    Path p = near.toAbsolutePath();
    while (p != null && !Files.exists(p)) {
      p = p.getParent();
    }
    return (p == null ? near.getFileSystem() : p.getFileSystem()).supportedFileAttributeViews().contains("posix");
  }

  /** An open atomic write; see {@link #open(Path)}. */
  public static final class Pending extends FilterOutputStream {
    private final Path target;
    private final Path tmp;
    private final FileChannel channel;
    private boolean done;

    private Pending(Path target, Path tmp, FileChannel channel) {
      super(new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16));
      this.target = target;
      this.tmp = tmp;
      this.channel = channel;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    /** The temporary file being written. */
    public Path temporary() {
      return tmp;
    }

    /** Discards what was written; the target is untouched. */
    public void abort() throws IOException {
      if (done) {
        return;
      }
      done = true;
      try {
        channel.close();
      } finally {
        Files.deleteIfExists(tmp);
      }
    }

    /** Discards the bytes unless {@link #commit()} published them. */
    @Override
    public void close() throws IOException {
      abort();
    }

    /** Forces the bytes to disk and renames them over the target. */
    public void commit() throws IOException {
      if (done) {
        throw new IOException("the write of " + target + " was already committed or aborted");
      }
      done = true;
      try {
        out.flush();
        channel.force(true);
        channel.close();
        move(tmp, target);
        forceDirectory(target.toAbsolutePath().getParent());
      } catch (IOException | RuntimeException e) {
        try {
          channel.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        Files.deleteIfExists(tmp);
        throw e;
      }
    }
  }

  /**
   * A fresh temporary sibling that a streaming writer (which forces its own channel) writes {@code file} to before
   * {@link #publish} renames it; unique, so two writers of the same file never share one.
   */
  public static Path temporary(Path file) {
    return file.resolveSibling(file.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong())
        + TMP_SUFFIX);
  }

  /** Renames an already forced temporary file over {@code file} and forces the folder's entry. */
  public static void publish(Path tmp, Path file) throws IOException {
    move(tmp, file);
    forceDirectory(file.toAbsolutePath().getParent());
  }

  /** Deletes a temporary file, ignoring failures (used on a path that is already failing). */
  public static void discard(Path tmp) {
    try {
      Files.deleteIfExists(tmp);
    } catch (IOException ignored) {
      // the caller reports the original failure
    }
  }

  static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the file system of " + to.getParent() + " cannot rename atomically", e);
    }
  }

  /** Forces a directory's entries to disk, where the platform allows opening a directory. */
  static void forceDirectory(Path dir) {
    if (dir == null) {
      return;
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException | UnsupportedOperationException ignored) {
      // Some platforms cannot open directories; the rename itself is still atomic there.
    }
  }
}
