package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.store.RunDir;
import io.gitm.store.RunInfo;
import io.gitm.store.RunStore;
import io.gitm.store.s3.S3MockServer;
import io.gitm.store.s3.S3Settings;
import io.gitm.store.s3.SilentServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code gitm sync} and the sync at the end of {@code gitm run}, against a real S3-compatible server on loopback. The
 * CLI takes its credentials from the standard chain: here the {@code aws.accessKeyId} / {@code aws.secretAccessKey}
 * system properties, set for this class only.
 */
class SyncCommandTest {
  @TempDir
  Path dir;

  static S3MockServer server;
  String prefix;

  @BeforeAll
  static void credentials() throws Exception {
    server = S3MockServer.shared();
    System.setProperty("aws.accessKeyId", S3MockServer.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", S3MockServer.SECRET_KEY);
  }

  @AfterAll
  static void clearCredentials() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  @BeforeEach
  void prefix() {
    prefix = "cli/" + Long.toHexString(ThreadLocalRandom.current().nextLong());
  }

  @Test
  void syncPushesTheStoreThenAnotherStoreFetchesItsPinnedDataset() throws Exception {
    RunStore a = RunStore.open(dir.resolve("a"));
    RunDir run = run(a);
    byte[] itch = "ITCH bytes".getBytes(StandardCharsets.US_ASCII);
    dataset(a, "day.itch", itch);

    CliResult pushed = sync(a);

    assertThat(pushed.code()).as(pushed.err()).isZero();
    assertThat(pushed.out()).contains(
        "s3       s3://gitm-test/" + prefix + " at " + server.endpoint() + " (path-style)",
        "upload   datasets/hft/day.itch (10 B, one request)",
        "upload   runs/" + run.id() + "/run.json (",
        "sync     2 uploaded (");
    RunStore b = RunStore.open(dir.resolve("b"));

    CliResult fetched = sync(b);

    assertThat(fetched.code()).as(fetched.err()).isZero();
    assertThat(fetched.out()).contains("download datasets/hft/day.itch (10 B, sha256 " + sha256(itch)
        + " matches its pin)", ", 1 downloaded, 0 refused");
    assertThat(b.datasets("hft").resolve("day.itch")).hasBinaryContent(itch);
  }

  @Test
  void aDatasetPinnedOtherwiseInS3ExitsOneNamingItAndS3KeepsItsPin() throws Exception {
    RunStore a = RunStore.open(dir);
    dataset(a, "day.itch", "mine".getBytes(StandardCharsets.US_ASCII));
    String theirs = sha256("theirs".getBytes(StandardCharsets.US_ASCII)) + "  day.itch\n";
    try (S3Client raw = server.client()) {
      raw.putObject(p -> p.bucket(S3MockServer.BUCKET).key(prefix + "/datasets/hft/day.itch.sha256"),
          RequestBody.fromString(theirs));

      CliResult r = sync(a);

      assertThat(r.code()).isEqualTo(1);
      assertThat(r.out()).contains("refused  datasets/hft/day.itch: S3 pins sha256 ");
      assertThat(r.errorLine()).startsWith("gitm: error: 1 refused (datasets are immutable): datasets/hft/day.itch:"
          + " S3 pins sha256 " + theirs.substring(0, 64));
      assertThat(raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET).key(prefix + "/datasets/hft/day.itch.sha256"))
          .asUtf8String()).isEqualTo(theirs);
    }
  }

  @Test
  void jsonGivesTheCountsAsOneDocument() throws Exception {
    RunStore a = RunStore.open(dir);
    run(a);

    CliResult r = CliResult.run("sync", "--json", "--scratch", a.root().toString(), "--s3-root",
        "s3://gitm-test/" + prefix, "--endpoint", server.endpoint().toString());

    assertThat(r.code()).as(r.err()).isZero();
    Map<?, ?> doc = Json.MAPPER.readValue(r.out(), Map.class);
    assertThat(doc.get("root")).isEqualTo("s3://gitm-test/" + prefix);
    assertThat(doc.get("uploaded")).isEqualTo(1);
    assertThat(doc.get("downloaded")).isEqualTo(0);
    assertThat(doc.get("refused")).isEqualTo(java.util.List.of());
  }

  @Test
  void aBadRootOrEndpointIsBadUsageInOneLine() {
    CliResult root = CliResult.run("sync", "--scratch", dir.toString(), "--s3-root", "https://bucket/x");
    assertThat(root.code()).isEqualTo(Main.USAGE);
    assertThat(root.errorLine()).isEqualTo("gitm: --s3-root 'https://bucket/x' must start with s3:// (e.g."
        + " s3://my-bucket/gitm)");

    CliResult endpoint = CliResult.run("sync", "--scratch", dir.toString(), "--s3-root", "s3://b-1/x", "--endpoint",
        "ftp://host:21");
    assertThat(endpoint.code()).isEqualTo(Main.USAGE);
    assertThat(endpoint.errorLine()).isEqualTo("gitm: --endpoint 'ftp://host:21' must start with http:// or https://");

    CliResult run = CliResult.run("sync", "--scratch", dir.toString(), "--s3-root", "s3://b-1/x", "--run", "nope");
    assertThat(run.code()).isEqualTo(Main.USAGE);
    assertThat(run.errorLine()).startsWith("gitm: --run: no run 'nope' in ");
  }

  @Test
  void settingsComeFromTheEnvironmentUnlessAnOptionGivesThem() {
    CommandLine cl = new CommandLine(new SyncCommand());
    Map<String, String> env = Map.of("GITM_S3_ROOT", "s3://env-bucket/p", "GITM_S3_ENDPOINT", "not a url");

    assertThat(SyncCommand.settings(cl, null, "http://127.0.0.1:1", env).describe())
        .isEqualTo("s3://env-bucket/p at http://127.0.0.1:1 (path-style)");
    assertThat(SyncCommand.settings(cl, "s3://opt-bucket", null, Map.of()).describe()).isEqualTo("s3://opt-bucket");
    assertThatThrownBy(() -> SyncCommand.settings(cl, null, null, env))
        .hasMessage("GITM_S3_ENDPOINT 'not a url' is not a URL: Illegal character in path");
    assertThatThrownBy(() -> SyncCommand.settings(cl, null, null, Map.of()))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("nowhere to sync to: set GITM_S3_ROOT to s3://bucket/prefix or give --s3-root");
  }

  @Test
  void theEndOfARunPushesThatRunAndSaysSoInOneLine() throws Exception {
    RunStore a = RunStore.open(dir);
    RunDir other = run(a);
    RunDir run = run(a);
    run.writeText("report.md", "# report\n");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    SyncCommand.afterRun(new PrintWriter(out), new PrintWriter(err), env(server.endpoint().toString()), a, run.id(),
        false);

    assertThat(err.toString()).isEmpty();
    assertThat(out.toString()).matches("s3       s3://gitm-test/" + prefix + ": 2 uploaded \\(0\\.\\d KiB\\), 0 up to"
        + " date, 0 downloaded, 0 refused\n");
    try (S3Client raw = server.client()) {
      assertThat(raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET).key(prefix + "/runs/" + run.id()
          + "/report.md")).asUtf8String()).isEqualTo("# report\n");
      assertThat(raw.listObjectsV2(l -> l.bucket(S3MockServer.BUCKET).prefix(prefix + "/runs/" + other.id()))
          .contents()).isEmpty();
    }
  }

  @Test
  void theUsersInputIsPushedFileByFilePinnedUnderItsFingerprintAndAChangedFileIsRefused() throws Exception {
    Path root = dir.resolve("training");
    Map<String, String> want = RunInputTest.kitti(root, "--frames", "2", "--points", "500", "--no-images");
    RunStore a = RunStore.open(dir.resolve("store"));
    CliResult r = SteppedRuns.run("run", "--workload", "kitti", "--input", root.toString(), "--budget", "30s",
        "--target", "15%", "--device", "sim", "--max-iterations", "2", "--levers", "pinned-host-memory", "--scratch",
        a.root().toString(), "--json");
    assertThat(r.code()).as(r.err()).isZero();
    String runId = Json.MAPPER.readTree(r.out()).get("run").asString();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    SyncCommand.afterRun(new PrintWriter(out), new PrintWriter(err), env(server.endpoint().toString()), a, runId,
        false);

    assertThat(err.toString()).isEmpty();
    String base = prefix + "/datasets/inputs/" + want.get("sha256") + "/";
    try (S3Client raw = server.client()) {
      for (String rel : java.util.List.of("velodyne/000000.bin", "velodyne/000001.bin", "calib/000001.txt",
          "label_2/000000.txt")) {
        assertThat(raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET).key(base + rel)).asByteArray())
            .as(rel).isEqualTo(Files.readAllBytes(root.resolve(rel)));
        String name = rel.substring(rel.indexOf('/') + 1);
        assertThat(raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET).key(base + rel + ".sha256"))
            .asUtf8String()).isEqualTo(want.get("sha256." + rel) + "  " + name + "\n");
      }
      assertThat(raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET).key(prefix + "/runs/" + runId
          + "/input.json")).asUtf8String()).contains(want.get("sha256"));
    }
    Files.writeString(root.resolve("label_2/000000.txt"),
        "DontCare -1 -1 -10 1 1 2 2 -1 -1 -1 -1000 -1000 -1000 -10\n");
    CliResult again = sync(a);
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.out() + again.err()).contains("datasets/inputs/" + want.get("sha256") + "/label_2/000000.txt")
        .contains("but its pin says " + want.get("sha256.label_2/000000.txt"));
  }

  @Test
  void theEndOfARunUnderJsonSaysItOnStandardErrorSoThatStandardOutputStaysOneDocument() throws Exception {
    RunStore a = RunStore.open(dir);
    RunDir run = run(a);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    SyncCommand.afterRun(new PrintWriter(out), new PrintWriter(err), env(server.endpoint().toString()), a, run.id(),
        true);

    assertThat(out.toString()).isEmpty();
    assertThat(err.toString()).startsWith("s3       s3://gitm-test/" + prefix + ": 1 uploaded");
  }

  @Test
  void theEndOfARunWithS3UnreachableOnlyWarns() throws Exception {
    RunStore a = RunStore.open(dir);
    RunDir run = run(a);
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    SyncCommand.afterRun(new PrintWriter(out), new PrintWriter(err), env("http://127.0.0.1:" + closed), a, run.id(),
        false);

    assertThat(out.toString()).isEmpty();
    assertThat(err.toString()).startsWith("gitm: warning: run " + run.id() + " not synced to s3://gitm-test/" + prefix
        + ": S3 ").endsWith("('gitm sync' tries again)\n").hasLineCount(1);
  }

  @Test
  void theEndOfARunWithAnS3ThatNeverAnswersSaysTheWaitGivesUpAndWritesNothing() throws Exception {
    RunStore a = RunStore.open(dir);
    RunDir run = run(a);
    run.writeText("report.md", "# report\n");
    Map<Path, Long> before = listing(dir);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    // it answers "access denied" only after 30 s, a hundred times the attempts' limit: a sync that did not hold to
    // its limits would end denied rather than having given up
    try (SilentServer silent = new SilentServer(Duration.ofSeconds(30))) {
      SyncCommand.afterRun(new PrintWriter(out), new PrintWriter(err), env(silent.endpoint().toString()), a, run.id(),
          false, Duration.ofSeconds(-5), s -> s.withRetries(2, Duration.ofMillis(1), Duration.ofMillis(5))
              .withLimits(new S3Settings.Limits(Duration.ofSeconds(5), Duration.ofMillis(300), Duration.ofMinutes(5))));
    }

    assertThat(out.toString()).startsWith("s3       no answer from S3 at http://127.0.0.1:")
        .contains(" within 300 ms (up to 2 attempts); the sync gives up 15 s after the run\n")
        .doesNotContain("uploaded").hasLineCount(2);
    assertThat(err.toString()).startsWith("gitm: warning: run " + run.id() + " not synced to s3://gitm-test/" + prefix
        + ": gave up on S3 ").contains("no answer in time").endsWith("('gitm sync' tries again)\n").hasLineCount(1);
    assertThat(listing(dir)).isEqualTo(before);
  }

  private static Map<Path, Long> listing(Path root) throws IOException {
    Map<Path, Long> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        out.put(root.relativize(p), Files.size(p));
      }
    }
    return out;
  }

  @Test
  void withoutGitmS3RootTheEndOfARunDoesNothing() throws Exception {
    RunStore a = RunStore.open(dir);
    RunDir run = run(a);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    SyncCommand.afterRun(new PrintWriter(out), new PrintWriter(err), Map.of(), a, run.id(), false);

    assertThat(out.toString()).isEmpty();
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void doctorNamesTheRootAndEndpointAndFailsOnABadEndpoint() {
    assertThat(DoctorCommand.s3Check("s3://b-1/p", "http://127.0.0.1:9000").detail())
        .isEqualTo("s3://b-1/p at http://127.0.0.1:9000 (path-style) (well-formed; not contacted; synced when a run"
            + " ends and by 'gitm sync')");
    assertThat(DoctorCommand.s3Check("s3://b-1/p", "localhost:9000").status())
        .isEqualTo(io.gitm.device.DiagnosticCheck.Status.FAILED);
    assertThat(DoctorCommand.s3Check(null, "http://127.0.0.1:9000").detail())
        .isEqualTo("not set (optional: runs stay local)");
  }

  private Map<String, String> env(String endpoint) {
    return Map.of("GITM_S3_ROOT", "s3://gitm-test/" + prefix, "GITM_S3_ENDPOINT", endpoint);
  }

  private CliResult sync(RunStore store) {
    return CliResult.run("sync", "--scratch", store.root().toString(), "--s3-root", "s3://gitm-test/" + prefix,
        "--endpoint", server.endpoint().toString());
  }

  private static RunDir run(RunStore store) throws IOException {
    return RunDir.create(store, new RunInfo(null, "hft-lob", "gitm run", "2m", "15%", Map.of("kind", "simulated"),
        null, "test"), Clock.systemUTC());
  }

  private static void dataset(RunStore store, String name, byte[] bytes) throws Exception {
    Files.write(store.datasets("hft").resolve(name), bytes);
    Files.writeString(store.datasets("hft").resolve(name + ".sha256"), sha256(bytes) + "  " + name + "\n");
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
