package io.gitm.workloads.hft;

import java.nio.ByteBuffer;

/**
 * The ITCH 5.0 messages a session runs on, without framing, in file order: a file read whole ({@link ItchFile}) or
 * a user's file streamed from disk ({@link ItchInput}).
 */
interface ItchSource {
  /** How many messages there are. */
  int count();

  /** The highest stock locate a book message may name; book messages use 1..instruments. */
  int instruments();

  /** A reader of the messages from the first, in order; each session opens its own. */
  Cursor cursor();

  /** A forward-only reader of messages. */
  interface Cursor extends AutoCloseable {
    /**
     * Copies the next {@code m} messages back to back into {@code dst} from index 0 and the start of each, relative
     * to index 0, into {@code offsets[0..m)}; returns the bytes written.
     */
    int next(int m, ByteBuffer dst, int[] offsets);

    @Override
    void close();
  }
}
