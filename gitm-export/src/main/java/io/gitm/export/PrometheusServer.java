package io.gitm.export;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves the board on {@code GET /metrics} in the Prometheus text format (Micrometer's, {@link PrometheusText}),
 * from the JDK's HTTP server on one daemon thread (scrapes are served one at a time; each renders the board
 * afresh). {@code /} answers with a pointer to {@code /metrics}; other paths are 404, other methods 405.
 */
final class PrometheusServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;

  PrometheusServer(InetSocketAddress address, Board board, PrometheusText text) throws IOException {
    this.server = HttpServer.create(address, 16);
    this.executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "gitm-metrics-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/metrics", ex -> {
      try (ex) {
        if (!allowed(ex)) {
          return;
        }
        if (!ex.getRequestURI().getPath().equals("/metrics")) {
          send(ex, 404, "text/plain; charset=utf-8", "not found: try /metrics\n");
          return;
        }
        board.scraped();
        send(ex, 200, PrometheusText.CONTENT_TYPE, text.write(board.collect()));
      }
    });
    server.createContext("/", ex -> {
      try (ex) {
        if (!allowed(ex)) {
          return;
        }
        if (ex.getRequestURI().getPath().equals("/")) {
          send(ex, 200, "text/plain; charset=utf-8", "gitm metrics exporter: GET /metrics\n");
        } else {
          send(ex, 404, "text/plain; charset=utf-8", "not found: try /metrics\n");
        }
      }
    });
    server.start();
  }

  /** The address bound (the real port when 0 was asked for). */
  InetSocketAddress address() {
    return server.getAddress();
  }

  private static boolean allowed(HttpExchange ex) throws IOException {
    String m = ex.getRequestMethod();
    if (m.equals("GET") || m.equals("HEAD")) {
      return true;
    }
    ex.getResponseHeaders().set("Allow", "GET, HEAD");
    send(ex, 405, "text/plain; charset=utf-8", "method " + m + " not allowed: GET /metrics\n");
    return false;
  }

  private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
