package io.gitm.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.store.RunDir;
import io.gitm.store.RunInfo;
import io.gitm.store.RunLock;
import io.gitm.store.RunStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The sync against a real S3-compatible server (S3Mock, started on loopback by {@link S3MockServer}). */
class S3SyncTest {
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);
  static final int PART = (int) S3Settings.MIN_PART_SIZE;

  @TempDir
  Path dir;

  S3MockServer server;
  S3Client raw;
  String prefix;

  @BeforeEach
  void start() throws Exception {
    server = S3MockServer.shared();
    raw = server.client();
    prefix = "t/" + Long.toHexString(ThreadLocalRandom.current().nextLong());
  }

  @AfterEach
  void stop() {
    raw.close();
  }

  @Test
  void syncUploadsDatasetsRunsTracesAndTelemetryByteForByteWithAManifestPerFolder() throws IOException {
    RunStore store = RunStore.open(dir.resolve("a"));
    RunDir run = run(store);
    run.writeText("report.md", "# report\n");
    Files.writeString(store.traces().resolve("imported.gtrace"), "trace bytes");
    Files.createDirectories(store.telemetry().resolve("dev0"));
    Files.writeString(store.telemetry().resolve("dev0/samples.jsonl"), "{\"t\":1}\n");
    byte[] itch = bytes(1000, 1);
    dataset(store, "hft", "tiny.itch", itch);

    S3Sync.Summary s = sync(store, new ArrayList<>());

    assertThat(s.refused()).isEmpty();
    assertThat(s.uploaded()).isEqualTo(5); // run.json, report.md, the trace, the samples, the dataset
    assertThat(get("runs/" + run.id() + "/report.md")).isEqualTo("# report\n".getBytes(StandardCharsets.UTF_8));
    assertThat(get("runs/" + run.id() + "/run.json")).isEqualTo(Files.readAllBytes(run.dir().resolve("run.json")));
    assertThat(get("traces/imported.gtrace")).isEqualTo("trace bytes".getBytes(StandardCharsets.UTF_8));
    assertThat(get("telemetry/dev0/samples.jsonl")).isEqualTo("{\"t\":1}\n".getBytes(StandardCharsets.UTF_8));
    assertThat(get("datasets/hft/tiny.itch")).isEqualTo(itch);
    assertThat(new String(get("datasets/hft/tiny.itch.sha256"), StandardCharsets.US_ASCII))
        .isEqualTo(Digests.sha256(itch) + "  tiny.itch\n");
    Manifest m = Manifest.parse(get("runs/" + run.id() + "/" + Manifest.NAME));
    assertThat(m.folder()).isEqualTo("runs/" + run.id());
    assertThat(m.syncedAt()).isEqualTo("2026-11-30T12:00:00Z");
    assertThat(m.files()).extracting(Manifest.Entry::path).containsExactly("report.md", "run.json");
    assertThat(m.byPath().get("report.md").sha256())
        .isEqualTo(Digests.sha256("# report\n".getBytes(StandardCharsets.UTF_8)));
    assertThat(Manifest.parse(get("telemetry/" + Manifest.NAME)).files()).extracting(Manifest.Entry::path)
        .containsExactly("dev0/samples.jsonl");
  }

  @Test
  void aRunsLockAndSecretsStayOnThisMachine() throws IOException {
    RunStore store = RunStore.open(dir.resolve("a"));
    RunDir run = run(store);
    run.writeJson(RunDir.SECRETS_FILE, Map.of("environment", Map.of("TOKEN", "hunter2")));
    run.lock().close();

    S3Sync.Summary s = sync(store, new ArrayList<>());

    assertThat(s.refused()).isEmpty();
    Manifest m = Manifest.parse(get("runs/" + run.id() + "/" + Manifest.NAME));
    assertThat(m.files()).extracting(Manifest.Entry::path).containsExactly("run.json");
    assertThat(raw.listObjectsV2Paginator(l -> l.bucket(S3MockServer.BUCKET).prefix(prefix + "/")).contents()
        .stream().map(S3Object::key).toList())
        .noneMatch(k -> k.endsWith(RunDir.SECRETS_FILE) || k.endsWith(RunLock.FILE));
  }

  @Test
  void secondSyncOfAnUnchangedStoreUploadsNothing() throws IOException {
    RunStore store = RunStore.open(dir);
    run(store);
    dataset(store, "edge", "points.bin", bytes(5000, 2));
    assertThat(sync(store, new ArrayList<>()).uploaded()).isEqualTo(2);

    S3Sync.Summary again = sync(store, new ArrayList<>());

    assertThat(again.uploaded()).isZero();
    assertThat(again.upToDate()).isEqualTo(2);
  }

  @Test
  void fileThatGrewSinceItsManifestIsUploadedAgainAndTheManifestFollows() throws IOException {
    RunStore store = RunStore.open(dir);
    RunDir run = run(store);
    try (var j = run.journal()) {
      j.append("start", "2026-11-30T12:00:00Z", Map.of("n", 1));
    }
    sync(store, new ArrayList<>());
    try (var j = run.journal()) {
      j.append("end", "2026-11-30T12:00:01Z", Map.of("n", 2));
    }

    List<S3Sync.Event> events = new ArrayList<>();
    S3Sync.Summary s = sync(store, events);

    assertThat(s.uploaded()).isEqualTo(1);
    assertThat(events).filteredOn(e -> e.kind() == S3Sync.Kind.UPLOADED).extracting(S3Sync.Event::path)
        .containsExactly("runs/" + run.id() + "/journal.jsonl");
    byte[] journal = Files.readAllBytes(run.dir().resolve("journal.jsonl"));
    assertThat(get("runs/" + run.id() + "/journal.jsonl")).isEqualTo(journal);
    assertThat(Manifest.parse(get("runs/" + run.id() + "/" + Manifest.NAME)).byPath().get("journal.jsonl").sha256())
        .isEqualTo(Digests.sha256(journal));
  }

  @Test
  void temporaryFilesOfInterruptedLocalWritesAreNeverUploaded() throws IOException {
    RunStore store = RunStore.open(dir);
    RunDir run = run(store);
    Files.writeString(run.dir().resolve(".report.md.1f2e.tmp"), "half a rep");
    Files.writeString(store.traces().resolve("x.gtrace.77.tmp"), "half a trace");

    sync(store, new ArrayList<>());

    assertThat(keys()).noneMatch(k -> k.endsWith(".tmp"));
  }

  @Test
  void largeFileIsUploadedInPartsAndArrivesWhole() throws IOException {
    RunStore store = RunStore.open(dir);
    byte[] trace = bytes(2 * PART + 12345, 3);
    Files.write(store.traces().resolve("big.gtrace"), trace);
    List<S3Sync.Event> events = new ArrayList<>();

    sync(store, events);

    assertThat(events).filteredOn(e -> e.kind() == S3Sync.Kind.PART).extracting(S3Sync.Event::detail)
        .containsExactly("part 1 of 3", "part 2 of 3", "part 3 of 3");
    assertThat(get("traces/big.gtrace")).isEqualTo(trace);
    assertThat(raw.headObject(h -> h.bucket(S3MockServer.BUCKET).key(key("traces/big.gtrace"))).metadata())
        .containsEntry(Bucket.SHA256, Digests.sha256(trace));
    assertThat(keys()).noneMatch(k -> k.contains(Uploader.MARKERS));
  }

  @Test
  void interruptedUploadLeavesNoObjectAndTheNextSyncSendsOnlyTheMissingParts() throws IOException {
    RunStore store = RunStore.open(dir);
    byte[] trace = bytes(3 * PART + 7, 4);
    Files.write(store.traces().resolve("big.gtrace"), trace);

    assertThatThrownBy(() -> sync(store, stopAfterParts(2))).isInstanceOf(Interrupted.class);

    assertThat(keys()).doesNotContain(key("traces/big.gtrace"), key("traces/" + Manifest.NAME));
    assertThatThrownBy(() -> get("traces/big.gtrace")).isInstanceOf(NoSuchKeyException.class);

    List<S3Sync.Event> events = new ArrayList<>();
    S3Sync.Summary s = sync(store, events);

    assertThat(events).filteredOn(e -> e.kind() == S3Sync.Kind.PART).extracting(S3Sync.Event::detail)
        .containsExactly("part 3 of 4", "part 4 of 4");
    assertThat(s.resumed()).isEqualTo(1);
    assertThat(s.reusedParts()).isEqualTo(2);
    assertThat(get("traces/big.gtrace")).isEqualTo(trace);
    assertThat(keys()).contains(key("traces/" + Manifest.NAME)).noneMatch(k -> k.contains(Uploader.MARKERS));
  }

  @Test
  void interruptedUploadOfAFileThatChangedSinceIsStartedAfreshNotSpliced() throws IOException {
    RunStore store = RunStore.open(dir);
    Path f = store.traces().resolve("big.gtrace");
    Files.write(f, bytes(3 * PART, 5));
    assertThatThrownBy(() -> sync(store, stopAfterParts(2))).isInstanceOf(Interrupted.class);
    byte[] grown = bytes(3 * PART + 100, 5); // the same first parts, one more byte range
    Files.write(f, grown);

    List<S3Sync.Event> events = new ArrayList<>();
    S3Sync.Summary s = sync(store, events);

    assertThat(s.resumed()).isZero();
    assertThat(events).filteredOn(e -> e.kind() == S3Sync.Kind.PART).hasSize(4);
    assertThat(get("traces/big.gtrace")).isEqualTo(grown);
    assertThat(raw.headObject(h -> h.bucket(S3MockServer.BUCKET).key(key("traces/big.gtrace"))).metadata())
        .containsEntry(Bucket.SHA256, Digests.sha256(grown));
    assertThat(raw.listMultipartUploads(l -> l.bucket(S3MockServer.BUCKET).prefix(key(""))).uploads()).isEmpty();
  }

  @Test
  void pinnedDatasetMissingHereIsDownloadedCheckedAndPinned() throws IOException {
    RunStore a = RunStore.open(dir.resolve("a"));
    byte[] data = bytes(PART + 99, 6); // more than one part
    dataset(a, "biotech", "msa.bin", data);
    sync(a, new ArrayList<>());
    RunStore b = RunStore.open(dir.resolve("b"));

    List<S3Sync.Event> events = new ArrayList<>();
    S3Sync.Summary s = sync(b, events);

    assertThat(s.downloaded()).isEqualTo(1);
    assertThat(s.refused()).isEmpty();
    assertThat(events).filteredOn(e -> e.kind() == S3Sync.Kind.DOWNLOADED).extracting(S3Sync.Event::path)
        .containsExactly("datasets/biotech/msa.bin");
    assertThat(Files.readAllBytes(b.datasets("biotech").resolve("msa.bin"))).isEqualTo(data);
    assertThat(Files.readString(b.datasets("biotech").resolve("msa.bin.sha256")))
        .isEqualTo(Digests.sha256(data) + "  msa.bin\n");
  }

  @Test
  void datasetTamperedInS3IsRefusedOnDownloadAndNothingIsKeptHere() throws IOException {
    RunStore a = RunStore.open(dir.resolve("a"));
    byte[] data = bytes(4000, 7);
    dataset(a, "hft", "day.itch", data);
    sync(a, new ArrayList<>());
    byte[] tampered = data.clone();
    tampered[100] ^= 1;
    // the same metadata as gitm wrote, so only the bytes tell
    raw.putObject(p -> p.bucket(S3MockServer.BUCKET).key(key("datasets/hft/day.itch"))
        .metadata(Map.of(Bucket.SHA256, Digests.sha256(data))), RequestBody.fromBytes(tampered));
    RunStore b = RunStore.open(dir.resolve("b"));

    S3Sync.Summary s = sync(b, new ArrayList<>());

    assertThat(s.downloaded()).isZero();
    assertThat(s.refused()).singleElement().asString()
        .startsWith("datasets/hft/day.itch: s3://" + S3MockServer.BUCKET + "/" + key("datasets/hft/day.itch"))
        .contains("does not match its pin", Digests.sha256(tampered), Digests.sha256(data));
    try (var files = Files.list(b.datasets("hft"))) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void datasetPinnedOtherwiseInS3IsRefusedAndS3IsLeftAsItWas() throws IOException {
    RunStore a = RunStore.open(dir.resolve("a"));
    byte[] original = bytes(3000, 8);
    dataset(a, "edge", "scan.bin", original);
    sync(a, new ArrayList<>());
    RunStore b = RunStore.open(dir.resolve("b"));
    byte[] other = bytes(3000, 9);
    dataset(b, "edge", "scan.bin", other);

    S3Sync.Summary s = sync(b, new ArrayList<>());

    assertThat(s.refused()).singleElement().asString()
        .startsWith("datasets/edge/scan.bin: S3 pins sha256 " + Digests.sha256(original))
        .contains("here it is " + Digests.sha256(other), "S3 is left as it is");
    assertThat(get("datasets/edge/scan.bin")).isEqualTo(original);
    assertThat(new String(get("datasets/edge/scan.bin.sha256"), StandardCharsets.US_ASCII))
        .startsWith(Digests.sha256(original));
  }

  @Test
  void datasetObjectWithOtherBytesButNoPinInS3IsNotOverwritten() throws IOException {
    raw.putObject(p -> p.bucket(S3MockServer.BUCKET).key(key("datasets/hft/day.itch")),
        RequestBody.fromString("someone else's"));
    RunStore a = RunStore.open(dir);
    dataset(a, "hft", "day.itch", bytes(2000, 10));

    S3Sync.Summary s = sync(a, new ArrayList<>());

    assertThat(s.refused()).singleElement().asString().contains("holds other bytes", "not overwritten");
    assertThat(new String(get("datasets/hft/day.itch"), StandardCharsets.UTF_8)).isEqualTo("someone else's");
    assertThat(keys()).doesNotContain(key("datasets/hft/day.itch.sha256"));
  }

  @Test
  void datasetThatNoLongerMatchesItsLocalPinIsRefusedAndNotUploaded() throws IOException {
    RunStore a = RunStore.open(dir);
    Path f = dataset(a, "hft", "day.itch", bytes(2000, 11));
    Files.write(f, new byte[] {1, 2, 3}, StandardOpenOption.APPEND);

    S3Sync.Summary s = sync(a, new ArrayList<>());

    assertThat(s.refused()).singleElement().asString().startsWith("datasets/hft/day.itch: its sha256 is ")
        .contains("not uploaded (datasets are immutable)");
    assertThat(keys()).noneMatch(k -> k.contains("datasets/"));
  }

  @Test
  void pushRunSendsThatRunAndLeavesOtherRunsAndDownloadsAlone() throws IOException {
    RunStore store = RunStore.open(dir);
    RunDir one = run(store);
    RunDir two = run(store);

    try (S3Sync s = S3Sync.open(server.settings(prefix), CLOCK)) {
      s.pushRun(store, two.id(), S3Sync.Listener.none());
    }

    assertThat(keys()).contains(key("runs/" + two.id() + "/run.json"))
        .noneMatch(k -> k.contains(one.id()));
  }

  // --- helpers

  /** Thrown by a listener to stop a sync in the middle of an upload. */
  static final class Interrupted extends RuntimeException {
    Interrupted() {
      super("interrupted by the test");
    }
  }

  static S3Sync.Listener stopAfterParts(int parts) {
    int[] n = {0};
    return e -> {
      if (e.kind() == S3Sync.Kind.PART && ++n[0] == parts) {
        throw new Interrupted();
      }
    };
  }

  S3Sync.Summary sync(RunStore store, List<S3Sync.Event> events) throws IOException {
    return sync(store, (S3Sync.Listener) events::add);
  }

  S3Sync.Summary sync(RunStore store, S3Sync.Listener listener) throws IOException {
    try (S3Sync s = S3Sync.open(server.settings(prefix), CLOCK)) {
      return s.sync(store, listener);
    }
  }

  static RunDir run(RunStore store) throws IOException {
    return RunDir.create(store, new RunInfo(null, "hft-lob", "gitm run", "2m", "15%", Map.of("kind", "simulated"),
        null, "test"), CLOCK);
  }

  /** Writes a dataset and its pin, as the workloads do. */
  static Path dataset(RunStore store, String domain, String name, byte[] bytes) throws IOException {
    Path f = store.datasets(domain).resolve(name);
    Files.write(f, bytes);
    Files.writeString(store.datasets(domain).resolve(name + ".sha256"), Digests.sha256(bytes) + "  " + name + "\n");
    return f;
  }

  static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  String key(String path) {
    return prefix + "/" + path;
  }

  byte[] get(String path) {
    return raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET).key(key(path))).asByteArray();
  }

  List<String> keys() {
    return raw.listObjectsV2Paginator(l -> l.bucket(S3MockServer.BUCKET).prefix(prefix + "/")).contents().stream()
        .map(S3Object::key).toList();
  }
}
