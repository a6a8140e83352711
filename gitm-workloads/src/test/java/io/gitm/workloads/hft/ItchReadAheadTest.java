package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The read-ahead cursor: messages in order across its chunks, the reader's errors where they occur, a clean close. */
class ItchReadAheadTest {
  /** Messages 0..count-1, message i of length 1 + i % 7 filled with the byte i. */
  private static ItchReadAhead.Source counting(int count, RuntimeException after, AtomicBoolean closed) {
    return new ItchReadAhead.Source() {
      int i;

      @Override
      public int next(byte[] dst, int at) {
        if (i == count) {
          if (after != null) {
            throw after;
          }
          return -1;
        }
        int len = 1 + i % 7;
        for (int k = 0; k < len; k++) {
          dst[at + k] = (byte) i;
        }
        i++;
        return len;
      }

      @Override
      public void close() {
        closed.set(true);
      }
    };
  }

  @Test
  void messagesComeInOrderWithTheirOffsetsAcrossChunks() {
    int n = 2 * ItchReadAhead.CHUNK + 100;
    AtomicBoolean closed = new AtomicBoolean();
    try (ItchReadAhead c = new ItchReadAhead(counting(n, null, closed), "f")) {
      int seen = 0;
      for (int m : new int[] {3, ItchReadAhead.CHUNK, ItchReadAhead.CHUNK + 50, 47}) {
        ByteBuffer dst = ByteBuffer.allocate(m * 7);
        int[] offsets = new int[m];
        int bytes = c.next(m, dst, offsets);
        int expected = 0;
        for (int j = 0; j < m; j++) {
          int i = seen + j;
          assertThat(offsets[j]).as("offset of message %d", i).isEqualTo(expected);
          assertThat(dst.get(offsets[j])).isEqualTo((byte) i);
          expected += 1 + i % 7;
        }
        assertThat(bytes).isEqualTo(expected);
        seen += m;
      }
      assertThat(seen).isEqualTo(n);
    }
    assertThat(closed).isTrue();
  }

  @Test
  void theReadersErrorIsThrownToTheStepThatReachesItAfterTheMessagesBeforeIt() {
    RuntimeException corrupt = new ItchFormatException(1234, "the gzip stream is corrupt: invalid block type");
    try (ItchReadAhead c = new ItchReadAhead(counting(10, corrupt, new AtomicBoolean()), "f")) {
      int[] offsets = new int[10];
      assertThat(c.next(10, ByteBuffer.allocate(100), offsets)).isPositive();
      assertThatThrownBy(() -> c.next(1, ByteBuffer.allocate(10), new int[1])).isSameAs(corrupt);
    }
  }

  @Test
  void anInputShorterThanItsScanIsRefusedAsChanged() {
    try (ItchReadAhead c = new ItchReadAhead(counting(5, null, new AtomicBoolean()), "day.itch")) {
      assertThatThrownBy(() -> c.next(6, ByteBuffer.allocate(100), new int[6])).isInstanceOf(
          IllegalStateException.class).hasMessageContaining("day.itch ended after fewer messages than its scan");
    }
  }

  @Test
  void closingWhileTheReaderWaitsForRoomEndsItAndClosesTheSource() throws Exception {
    AtomicBoolean closed = new AtomicBoolean();
    ItchReadAhead c = new ItchReadAhead(counting(Integer.MAX_VALUE, null, closed), "f");
    c.next(1, ByteBuffer.allocate(10), new int[1]);
    c.close();
    assertThat(closed).as("the source is closed once the reader has ended").isTrue();
  }
}
