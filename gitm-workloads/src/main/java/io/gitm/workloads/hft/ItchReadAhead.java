package io.gitm.workloads.hft;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A cursor over a streamed file that reads ahead of the step: a thread of its own reads, decompresses and frames the
 * messages ({@link Source}) into chunks while the session computes, so that a step only copies messages it already
 * has. At most {@link #DEPTH} chunks of {@link #CHUNK} messages wait ready; an error of the reader (a corrupt or
 * truncated file, an I/O failure) is thrown to the step that reaches it, as the reader raised it.
 */
final class ItchReadAhead implements ItchSource.Cursor {
  /** Messages a chunk holds. */
  static final int CHUNK = 8192;
  /** Chunks ready ahead of the step. */
  static final int DEPTH = 4;

  /** The messages in order: {@link #next} copies the next one into {@code dst} from 0, returning its length, or -1. */
  interface Source extends AutoCloseable {
    int next(byte[] dst, int at);

    @Override
    void close();
  }

  /** Messages back to back, and where each ends; {@code error} or {@code end} mark the last chunk. */
  private static final class Chunk {
    final byte[] data = new byte[CHUNK * Itch.MAX_LENGTH];
    final int[] ends = new int[CHUNK];
    int count;
    boolean end;
    RuntimeException error;
  }

  private final Source source;
  private final String name;
  private final BlockingQueue<Chunk> ready = new ArrayBlockingQueue<>(DEPTH);
  private final BlockingQueue<Chunk> free = new ArrayBlockingQueue<>(DEPTH + 2);
  private final Thread reader;
  private volatile boolean closed;
  private Chunk current;
  private int index;

  /** @param name the file, as errors and the reader thread name it */
  ItchReadAhead(Source source, String name) {
    this.source = source;
    this.name = name;
    for (int i = 0; i < DEPTH + 2; i++) {
      free.add(new Chunk());
    }
    reader = Thread.ofPlatform().daemon().name("gitm-itch-read-ahead").unstarted(this::read);
    reader.start();
  }

  private void read() {
    try {
      boolean more = true;
      while (more && !closed) {
        Chunk c = free.take();
        c.count = 0;
        c.end = false;
        c.error = null;
        int w = 0;
        try {
          while (c.count < CHUNK) {
            int len = source.next(c.data, w);
            if (len < 0) {
              c.end = true;
              more = false;
              break;
            }
            w += len;
            c.ends[c.count++] = w;
          }
        } catch (RuntimeException e) {
          c.error = e;
          more = false;
        }
        ready.put(c);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closed while waiting: nothing more to read
    } finally {
      source.close();
    }
  }

  @Override
  public int next(int m, ByteBuffer dst, int[] offsets) {
    int w = 0;
    for (int j = 0; j < m; j++) {
      while (current == null || index == current.count) {
        if (current != null) {
          if (current.error != null) {
            throw current.error;
          }
          if (current.end) {
            throw new IllegalStateException("hft-lob: input " + name + " ended after fewer messages than its scan"
                + " counted: it changed since the run began");
          }
          free.add(current);
        }
        current = take();
        index = 0;
      }
      int from = index == 0 ? 0 : current.ends[index - 1];
      int len = current.ends[index] - from;
      offsets[j] = w;
      dst.put(w, current.data, from, len);
      w += len;
      index++;
    }
    return w;
  }

  private Chunk take() {
    try {
      return ready.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("hft-lob: interrupted while waiting for " + name + "'s next messages", e);
    }
  }

  @Override
  public void close() {
    closed = true;
    reader.interrupt();
    try {
      reader.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
