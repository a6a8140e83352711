package io.gitm.job;

import io.gitm.api.Ticker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * gitm's end of the live control channel of gitm's Python hook ({@code gitm_torch/live.py} defines the protocol):
 * newline-delimited JSON over a Unix socket, one request and its reply at a time, each reply waited for within a
 * deadline. Requests carry an {@code id} the hook echoes, so a reply that comes after its request was given up on is
 * skipped, never taken for a later one's.
 */
final class LiveChannel implements AutoCloseable {
  /** The longest reply line read. */
  static final int MAX_LINE = 8 << 20;
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final SocketChannel channel;
  private final Ticker ticker;
  private final Selector selector;
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  private final ByteBuffer buffer = ByteBuffer.allocate(64 << 10);
  private long nextId = 1;

  /** Thrown when the hook does not answer, answers with an error, or the channel breaks. */
  static final class Failure extends Exception {
    Failure(String message) {
      super(message, null, false, false);
    }
  }

  private LiveChannel(SocketChannel channel, Ticker ticker) throws IOException {
    this.channel = channel;
    this.ticker = ticker;
    channel.configureBlocking(false);
    this.selector = Selector.open();
    channel.register(selector, SelectionKey.OP_READ);
  }

  /** Connects to the socket at {@code path}; throws when nothing listens there (yet). */
  static LiveChannel connect(Path path, Ticker ticker) throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      ch.connect(UnixDomainSocketAddress.of(path));
      return new LiveChannel(ch, ticker);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * Sends {@code message} (with an {@code id} added) and returns the hook's reply to it.
   *
   * @throws Failure when no reply comes within {@code timeout}, the reply says {@code ok: false}, or the channel
   *     breaks
   */
  synchronized JsonNode call(Map<String, Object> message, Duration timeout) throws Failure {
    long id = nextId++;
    Map<String, Object> m = new LinkedHashMap<>(message);
    m.put("id", id);
    long deadline = ticker.nanos() + timeout.toNanos();
    send(JSON.writeValueAsString(m));
    JsonNode reply;
    do {
      reply = parse(readLine(deadline));
    } while (reply.path("id").asLong(-1) != id);
    if (!reply.path("ok").asBoolean(false)) {
      throw new Failure(reply.path("error").asString("the hook refused " + message.get("op")));
    }
    return reply;
  }

  /** Sends one line as it is (the hello, or a test's malformed message) and returns the hook's next reply. */
  synchronized JsonNode raw(String line, Duration timeout) throws Failure {
    send(line);
    return parse(readLine(ticker.nanos() + timeout.toNanos()));
  }

  private static JsonNode parse(String line) throws Failure {
    try {
      JsonNode n = JSON.readTree(line);
      if (n == null || !n.isObject()) {
        throw new Failure("the hook's reply is not a JSON object: " + abbreviate(line));
      }
      return n;
    } catch (RuntimeException e) {
      throw new Failure("the hook's reply is not JSON: " + abbreviate(line));
    }
  }

  private void send(String line) throws Failure {
    ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    try {
      while (b.hasRemaining()) {
        if (channel.write(b) == 0) {
          Thread.onSpinWait();
        }
      }
    } catch (IOException e) {
      throw new Failure("the channel to the job broke: " + e.getMessage());
    }
  }

  /** The next line from the hook, waiting until {@code deadline} (a reading of the ticker). */
  private String readLine(long deadline) throws Failure {
    while (true) {
      byte[] have = pending.toByteArray();
      for (int i = 0; i < have.length; i++) {
        if (have[i] == '\n') {
          pending.reset();
          pending.write(have, i + 1, have.length - i - 1);
          return new String(have, 0, i, StandardCharsets.UTF_8);
        }
      }
      if (have.length > MAX_LINE) {
        throw new Failure("the hook sent a line longer than " + MAX_LINE + " bytes");
      }
      if (Thread.currentThread().isInterrupted()) {
        throw new Failure("interrupted while waiting for the job's hook");
      }
      long left = deadline - ticker.nanos();
      if (left <= 0) {
        throw new Failure("the job's hook did not answer within the deadline");
      }
      try {
        selector.select(Math.max(1, left / 1_000_000));
        selector.selectedKeys().clear();
        buffer.clear();
        int n = channel.read(buffer);
        if (n < 0) {
          throw new Failure("the job closed the channel");
        }
        pending.write(buffer.array(), 0, n);
      } catch (IOException e) {
        throw new Failure("the channel to the job broke: " + e.getMessage());
      }
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 120 ? s.substring(0, 117) + "..." : s;
  }

  /** Closes the connection; the hook sees its controller go (without a detach, a trial in progress is reverted). */
  @Override
  public void close() {
    try {
      selector.close();
    } catch (IOException ignored) {
      // the channel is closed next either way
    }
    try {
      channel.close();
    } catch (IOException ignored) {
      // nothing more to do for a channel that will not close
    }
  }
}
