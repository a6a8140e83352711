package io.gitm.store.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback in front of a server that fails the first connections it is given faults for (one fault
 * per connection, in order), then passes bytes through untouched: a way to see what the S3 client does when S3
 * answers 503 or a connection breaks, against the real server behind.
 */
final class FaultyProxy implements AutoCloseable {
  enum Fault {
    /** Reads the request's head, answers {@code 503 Slow Down} and closes. */
    UNAVAILABLE,
    /** Reads the request's head and resets the connection. */
    RESET
  }

  private final ServerSocket server;
  private final URI target;
  private final Deque<Fault> faults;
  private final boolean always;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger faulted = new AtomicInteger();
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  /** Faults the first connections, one fault each; {@code always} repeats the last fault for every connection. */
  FaultyProxy(URI target, List<Fault> faults, boolean always) throws IOException {
    this.target = target;
    this.faults = new ArrayDeque<>(faults);
    this.always = always;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(this::accept);
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  int connections() {
    return connections.get();
  }

  int faulted() {
    return faulted.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        open.add(s);
        connections.incrementAndGet();
        Fault f;
        synchronized (faults) {
          f = faults.size() > 1 || !always ? faults.poll() : faults.peek();
        }
        Thread.ofVirtual().start(() -> serve(s, f));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket client, Fault fault) {
    try {
      if (fault == null) {
        Socket up = new Socket(target.getHost(), target.getPort());
        open.add(up);
        Thread.ofVirtual().start(() -> pipe(up, client));
        pipe(client, up);
        return;
      }
      readHead(client.getInputStream());
      faulted.incrementAndGet();
      if (fault == Fault.UNAVAILABLE) {
        byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
            + "<Message>Please reduce your request rate.</Message></Error>").getBytes(StandardCharsets.UTF_8);
        OutputStream out = client.getOutputStream();
        out.write(("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: " + body.length
            + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
      } else {
        client.setSoLinger(true, 0);
      }
      client.close();
    } catch (IOException e) {
      closeQuietly(client);
    }
  }

  private static void readHead(InputStream in) throws IOException {
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    int b;
    while (matched < 4 && (b = in.read()) >= 0) {
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
  }

  private static void pipe(Socket from, Socket to) {
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException ignored) {
      // one side closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      closeQuietly(s);
    }
  }
}
