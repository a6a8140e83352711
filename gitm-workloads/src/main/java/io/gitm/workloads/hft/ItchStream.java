package io.gitm.workloads.hft;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Reads ITCH 5.0 messages one at a time from a stream of (decompressed) bytes, framed by 2-byte length prefixes or
 * back to back; each message is read whole by its type's fixed length. Offsets are in bytes from the stream's start.
 */
final class ItchStream implements AutoCloseable {
  private static final int BUFFER = 1 << 20;

  private final InputStream in;
  private final boolean prefixed;
  private final String name;
  private final byte[] buf = new byte[BUFFER];
  private int pos;
  private int limit;
  private long consumed;
  /** The last message read: its bytes from index 0, its type's length, its offset, and its prefix. */
  private final byte[] message = new byte[Itch.MAX_LENGTH];
  private int length;
  private long offset;
  private int prefix;

  /** @param name the file, as errors name it */
  ItchStream(InputStream in, boolean prefixed, String name) {
    this.in = in;
    this.prefixed = prefixed;
    this.name = name;
  }

  /** Reads the next message into {@link #message()}; false at the end of the stream (between messages). */
  boolean next() {
    long at = consumed + pos;
    if (!fill(1)) {
      return false;
    }
    if (prefixed) {
      if (!fill(2)) {
        throw new ItchFormatException(at, "truncated length prefix (1 byte left)" + in());
      }
      prefix = ((buf[pos] & 0xff) << 8) | (buf[pos + 1] & 0xff);
      pos += 2;
      if (!fill(1)) {
        throw new ItchFormatException(at, "length prefix with no message after it" + in());
      }
    }
    offset = consumed + pos;
    int type = buf[pos] & 0xff;
    length = Itch.length(type);
    if (length == 0) {
      throw new ItchFormatException(offset, "unknown message type " + Itch.describe(type) + in());
    }
    if (!fill(length)) {
      throw new ItchFormatException(offset, "truncated message " + Itch.describe(type) + ": needs " + length
          + " bytes, " + (limit - pos) + " left" + in());
    }
    System.arraycopy(buf, pos, message, 0, length);
    pos += length;
    return true;
  }

  byte[] message() {
    return message;
  }

  int length() {
    return length;
  }

  int type() {
    return message[0] & 0xff;
  }

  /** The last message's offset in the (decompressed) stream. */
  long offset() {
    return offset;
  }

  /** The last message's 2-byte length prefix (framed streams only). */
  int prefix() {
    return prefix;
  }

  private String in() {
    return name == null ? "" : " (" + name + ")";
  }

  /** Whether {@code n} bytes are buffered from pos, reading more as needed; false when the stream ends first. */
  private boolean fill(int n) {
    if (limit - pos >= n) {
      return true;
    }
    System.arraycopy(buf, pos, buf, 0, limit - pos);
    consumed += pos;
    limit -= pos;
    pos = 0;
    try {
      while (limit < n) {
        int r = in.read(buf, limit, buf.length - limit);
        if (r < 0) {
          return false;
        }
        limit += r;
      }
    } catch (java.util.zip.ZipException e) {
      throw new ItchFormatException(consumed + limit, "the gzip stream is corrupt: " + e.getMessage() + in());
    } catch (java.io.EOFException e) {
      throw new ItchFormatException(consumed + limit, "the gzip stream ends early (the file is truncated)" + in());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + (name == null ? "the ITCH input" : name) + ": "
          + e.getMessage(), e);
    }
    return true;
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + (name == null ? "the ITCH input" : name), e);
    }
  }
}
