package io.gitm.store.s3;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server on loopback that accepts every connection and reads nothing: an S3 endpoint that is reachable and dead.
 * It answers each connection, if at all, only after a long hold, and then with 403 Access Denied, so that a client
 * without time limits of its own ends differently (denied) from one that gave up waiting; the hold is long enough
 * that the outcome does not depend on the machine's speed.
 */
public final class SilentServer implements AutoCloseable {
  private final ServerSocket socket;
  private final List<Socket> held = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  /** A server that never answers. */
  public SilentServer() throws IOException {
    this(null);
  }

  /** A server that answers 403 after {@code hold} on each connection (never, for null). */
  public SilentServer(Duration hold) throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = Thread.ofPlatform().daemon().name("silent-s3").start(() -> {
      while (!socket.isClosed()) {
        try {
          Socket s = socket.accept();
          held.add(s);
          if (hold != null) {
            Thread.ofPlatform().daemon().start(() -> answerLate(s, hold));
          }
        } catch (IOException closed) {
          return;
        }
      }
    });
  }

  private static void answerLate(Socket s, Duration hold) {
    try {
      Thread.sleep(hold);
      String body = "<Error><Code>AccessDenied</Code><Message>late</Message></Error>";
      s.getOutputStream().write(("HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\nContent-Length: "
          + body.length() + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
      s.close();
    } catch (IOException | InterruptedException gone) {
      // the client gave up first
    }
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort());
  }

  /** How many connections it has accepted so far. */
  public int accepted() {
    return held.size();
  }

  @Override
  public void close() throws IOException {
    socket.close();
    for (Socket s : held) {
      s.close();
    }
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
