package io.gitm.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.OptionalLong;

/**
 * The one writer of a run folder: an operating-system lock on {@value #FILE} in the folder, held while a run writes
 * there, with the holder's process id written in the file so that a refusal can name it. The operating system
 * releases the lock when its process ends, however it ends (kill -9 included), so a lock left by a dead process never
 * blocks anyone; the file itself stays, and only its lock counts.
 */
public final class RunLock implements AutoCloseable {
  /** The lock file in a run folder; never uploaded by a sync. */
  public static final String FILE = "run.lock";

  private final Path dir;
  private final FileChannel channel;
  private final FileLock lock;

  private RunLock(Path dir, FileChannel channel, FileLock lock) {
    this.dir = dir;
    this.channel = channel;
    this.lock = lock;
  }

  /** Thrown when another process (or another run in this one) writes the run folder. */
  public static final class HeldException extends IOException {
    private final OptionalLong pid;

    HeldException(String message, OptionalLong pid) {
      super(message);
      this.pid = pid;
    }

    /** The holder's process id, when its lock file names one. */
    public OptionalLong pid() {
      return pid;
    }
  }

  /**
   * Takes the lock of the run folder {@code dir} and writes this process's id in it.
   *
   * @throws HeldException when a live process holds it: the message names that process
   */
  public static RunLock acquire(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    FileChannel ch = FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE), AtomicFiles.privateFile(file));
    FileLock l;
    try {
      l = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      l = null;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    if (l == null) {
      OptionalLong holder = holder(ch);
      ch.close();
      throw new HeldException(heldMessage(dir, holder), holder);
    }
    try {
      byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
      ch.truncate(0);
      ch.write(ByteBuffer.wrap(pid), 0);
      ch.force(false);
    } catch (IOException | RuntimeException e) {
      l.release();
      ch.close();
      throw e;
    }
    return new RunLock(dir, ch, l);
  }

  /**
   * Whether the run folder {@code dir} is free to write: checks without keeping the lock.
   *
   * @throws HeldException when a live process holds it
   */
  public static void checkFree(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    acquire(dir).close();
  }

  public Path dir() {
    return dir;
  }

  /** Releases the lock; the file stays (a later writer takes it over). */
  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }

  private static OptionalLong holder(FileChannel ch) {
    try {
      ByteBuffer b = ByteBuffer.allocate(32);
      ch.read(b, 0);
      String s = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).strip();
      return s.matches("[0-9]{1,19}") ? OptionalLong.of(Long.parseLong(s)) : OptionalLong.empty();
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static String heldMessage(Path dir, OptionalLong holder) {
    String who;
    if (holder.isEmpty()) {
      who = "another process";
    } else if (holder.getAsLong() == ProcessHandle.current().pid()) {
      who = "this gitm process (pid " + holder.getAsLong() + ")";
    } else {
      who = "process " + holder.getAsLong();
    }
    return "run " + dir.getFileName() + " is still running in " + who + ", which holds " + dir.resolve(FILE)
        + ": wait for it to end, or stop it first";
  }
}
