package io.gitm.store.s3;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real S3-compatible server for tests: Adobe S3Mock's self-contained jar (fetched by the build into
 * {@code target/s3mock/s3mock.jar}, named by the system property {@code gitm.s3mock.jar}) run as a child process,
 * its S3 endpoint on a free loopback port, its objects in a temporary folder, bucket {@link #BUCKET} created. One
 * server serves every test of the JVM (it takes seconds to start); tests keep apart by key prefix. It is stopped,
 * and its folder deleted, when the JVM exits.
 *
 * <p>S3Mock also opens a second (plain HTTP) connector that cannot be bound to loopback; it is put on an ephemeral
 * port that nothing here uses.
 */
public final class S3MockServer {
  public static final String BUCKET = "gitm-test";
  public static final String ACCESS_KEY = "gitm-test-key";
  public static final String SECRET_KEY = "gitm-test-secret";
  private static final Duration START_LIMIT = Duration.ofSeconds(180);
  private static S3MockServer shared;

  private final Process process;
  private final URI endpoint;
  private final Path log;

  private S3MockServer(Process process, URI endpoint, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
  }

  /** The JVM's server, started on first use. */
  public static synchronized S3MockServer shared() throws IOException, InterruptedException {
    if (shared == null || !shared.process.isAlive()) {
      shared = start();
    }
    return shared;
  }

  public URI endpoint() {
    return endpoint;
  }

  /** Settings for {@code s3://gitm-test/PREFIX} on this server, with test credentials and small parts. */
  public S3Settings settings(String prefix) {
    return S3Settings.of(io.gitm.store.S3Root.parse("s3://" + BUCKET + "/" + prefix)).withEndpoint(endpoint)
        .withCredentials(new S3Settings.Keys(ACCESS_KEY, SECRET_KEY)).withRegion("us-east-1")
        .withPartSize(S3Settings.MIN_PART_SIZE).withRetries(3, Duration.ofMillis(10), Duration.ofMillis(100));
  }

  /** A plain S3 client of this server, for tests to look at (and tamper with) what the sync wrote. */
  public software.amazon.awssdk.services.s3.S3Client client() {
    return software.amazon.awssdk.services.s3.S3Client.builder()
        .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
        .endpointOverride(endpoint).forcePathStyle(true)
        .region(software.amazon.awssdk.regions.Region.US_EAST_1)
        .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  private static S3MockServer start() throws IOException, InterruptedException {
    String jarProperty = System.getProperty("gitm.s3mock.jar");
    if (jarProperty == null || !Files.isRegularFile(Path.of(jarProperty))) {
      throw new IllegalStateException("S3Mock's jar is missing (" + jarProperty + "): the build fetches it into"
          + " target/s3mock/ in the generate-test-resources phase; run the tests through Maven");
    }
    Path jar = Path.of(jarProperty);
    Path root = Files.createTempDirectory("gitm-s3mock");
    Path log = jar.resolveSibling("server-" + ProcessHandle.current().pid() + ".log");
    int port = freePort();
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(List.of(javaBin, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-jar", jar.toString(),
        "--server.address=127.0.0.1", "--server.port=" + port, "--server.ssl.enabled=false", "--http.port=0",
        "--com.adobe.testing.s3mock.store.root=" + root,
        "--com.adobe.testing.s3mock.store.initial-buckets=" + BUCKET,
        "--spring.main.banner-mode=off"))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    S3MockServer s = new S3MockServer(p, URI.create("http://127.0.0.1:" + port), log);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      p.destroy();
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException ignored) {
        p.destroyForcibly();
      }
      deleteTree(root);
    }));
    s.awaitReady();
    return s;
  }

  private void awaitReady() throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + START_LIMIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("S3Mock exited with status " + process.exitValue() + " while starting: "
            + tail());
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(endpoint.resolve("/")).timeout(Duration.ofSeconds(5))
            .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200 && r.body().contains(BUCKET)) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    process.destroyForcibly();
    throw new IllegalStateException("S3Mock did not answer within " + START_LIMIT.toSeconds() + " s: " + tail());
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> s = Files.walk(root)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary folder; the OS cleans it eventually
    }
  }
}
