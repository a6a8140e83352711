package io.gitm.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.store.RunStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * What S3 holds after a sync dies mid-upload (the process killed with SIGKILL, or S3 failing), and what the next sync
 * and the client's retries make of it, against the real server.
 */
class S3CrashTest {
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
    prefix = "c/" + Long.toHexString(ThreadLocalRandom.current().nextLong());
  }

  @AfterEach
  void stop() {
    raw.close();
  }

  @Test
  void processKilledMidUploadLeavesNoObjectNoManifestAndTheNextSyncContinuesTheUpload() throws Exception {
    RunStore store = RunStore.open(dir);
    byte[] trace = S3SyncTest.bytes(4 * PART + 1000, 21);
    Files.write(store.traces().resolve("big.gtrace"), trace);
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), SyncUntilKilled.class.getName(),
        server.endpoint().toString(), prefix, store.root().toString(), "3")
        .redirectErrorStream(true).start();
    List<String> said = new ArrayList<>();
    try {
      CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            said.add(line);
            if (line.equals("waiting")) {
              return true;
            }
          }
          return false;
        } catch (IOException e) {
          return false;
        }
      });
      assertThat(waiting.get(120, TimeUnit.SECONDS)).as("the child's output: %s", said).isTrue();
    } finally {
      child.destroyForcibly(); // SIGKILL: no shutdown hook, no finally block runs in the child
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(said).containsSubsequence("part 1 of 5", "part 2 of 5", "part 3 of 5", "waiting");

    // what a reader of S3 sees: no object at the trace's key, no manifest naming it
    assertThat(keys()).doesNotContain(key("traces/big.gtrace"), key("traces/" + Manifest.NAME));
    assertThatThrownBy(() -> raw.headObject(h -> h.bucket(S3MockServer.BUCKET).key(key("traces/big.gtrace"))))
        .isInstanceOf(NoSuchKeyException.class);
    assertThat(raw.listMultipartUploads(l -> l.bucket(S3MockServer.BUCKET).prefix(key("traces/"))).uploads())
        .hasSize(1);

    List<S3Sync.Event> events = new ArrayList<>();
    S3Sync.Summary s;
    try (S3Sync sync = S3Sync.open(server.settings(prefix), S3SyncTest.CLOCK)) {
      s = sync.sync(store, events::add);
    }

    assertThat(events).filteredOn(e -> e.kind() == S3Sync.Kind.PART).extracting(S3Sync.Event::detail)
        .containsExactly("part 4 of 5", "part 5 of 5");
    assertThat(s.reusedParts()).isEqualTo(3);
    assertThat(raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET).key(key("traces/big.gtrace"))).asByteArray())
        .isEqualTo(trace);
    assertThat(Manifest.parse(raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET)
        .key(key("traces/" + Manifest.NAME))).asByteArray()).byPath().get("big.gtrace").sha256())
        .isEqualTo(Digests.sha256(trace));
    assertThat(raw.listMultipartUploads(l -> l.bucket(S3MockServer.BUCKET).prefix(key(""))).uploads()).isEmpty();
    assertThat(keys()).noneMatch(k -> k.contains(Uploader.MARKERS));
  }

  @Test
  void slowDownAnswersAndResetConnectionsAreRetriedAndTheSyncCompletes() throws Exception {
    RunStore store = RunStore.open(dir);
    Files.write(store.traces().resolve("t.gtrace"), S3SyncTest.bytes(2 * PART + 5, 22));
    try (FaultyProxy proxy = new FaultyProxy(server.endpoint(), List.of(FaultyProxy.Fault.UNAVAILABLE,
        FaultyProxy.Fault.RESET, FaultyProxy.Fault.UNAVAILABLE, FaultyProxy.Fault.RESET), false)) {
      S3Settings settings = server.settings(prefix).withEndpoint(proxy.endpoint())
          .withRetries(5, Duration.ofMillis(5), Duration.ofMillis(50));

      S3Sync.Summary s;
      try (S3Sync sync = S3Sync.open(settings, S3SyncTest.CLOCK)) {
        s = sync.sync(store, S3Sync.Listener.none());
      }

      assertThat(proxy.faulted()).isEqualTo(4);
      assertThat(s.uploaded()).isEqualTo(1);
    }
    assertThat(raw.getObjectAsBytes(g -> g.bucket(S3MockServer.BUCKET).key(key("traces/t.gtrace"))).asByteArray())
        .isEqualTo(Files.readAllBytes(store.traces().resolve("t.gtrace")));
  }

  @Test
  void s3ThatKeepsFailingEndsTheSyncAfterTheLastAttemptWithOneLineNamingTheRequest() throws Exception {
    RunStore store = RunStore.open(dir);
    try (FaultyProxy proxy = new FaultyProxy(server.endpoint(), List.of(FaultyProxy.Fault.UNAVAILABLE), true)) {
      S3Settings settings = server.settings(prefix).withEndpoint(proxy.endpoint())
          .withRetries(3, Duration.ofMillis(5), Duration.ofMillis(20));

      try (S3Sync sync = S3Sync.open(settings, S3SyncTest.CLOCK)) {
        assertThatThrownBy(() -> sync.sync(store, S3Sync.Listener.none()))
            .isInstanceOf(IOException.class)
            .hasMessage("S3 LIST s3://" + S3MockServer.BUCKET + "/" + prefix + "/datasets/ failed: HTTP 503 SlowDown:"
                + " Please reduce your request rate.");
      }
      assertThat(proxy.faulted()).isEqualTo(3);
    }
  }

  String key(String path) {
    return prefix + "/" + path;
  }

  List<String> keys() {
    return raw.listObjectsV2Paginator(l -> l.bucket(S3MockServer.BUCKET).prefix(prefix + "/")).contents().stream()
        .map(S3Object::key).toList();
  }
}
