package io.gitm.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.store.RunDir;
import io.gitm.store.RunStore;
import io.gitm.store.S3Root;
import io.gitm.testkit.FakeTicker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sync to an endpoint that accepts connections and does not answer: every request is bounded by the settings' time
 * limits, each retry is said while it waits, and the sync gives up with one line and nothing written. The endpoint
 * answers "access denied" only after 30 s, a hundred times the attempts' limit, so a client that did not hold to its
 * limits would end denied rather than having given up.
 */
class S3DeadEndpointTest {
  @TempDir
  Path dir;

  private static S3Settings settings(SilentServer server) {
    return S3Settings.of(S3Root.parse("s3://gitm-test/dead")).withEndpoint(server.endpoint())
        .withCredentials(new S3Settings.Keys("key", "secret")).withRegion("us-east-1")
        .withRetries(2, Duration.ofMillis(1), Duration.ofMillis(5))
        .withLimits(new S3Settings.Limits(Duration.ofSeconds(5), Duration.ofMillis(300), Duration.ofMinutes(5)));
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
  void aSilentEndpointEndsTheSyncAtItsAttemptLimitSayingEachWaitAndWritesNothing() throws Exception {
    RunStore store = RunStore.open(dir.resolve("store"));
    RunDir run = S3SyncTest.run(store);
    run.writeText("report.md", "# report\n");
    Map<Path, Long> before = listing(store.root());
    List<S3Sync.Event> events = new ArrayList<>();
    try (SilentServer server = new SilentServer(Duration.ofSeconds(30));
        S3Sync sync = S3Sync.open(settings(server), Clock.systemUTC())) {
      assertThatThrownBy(() -> sync.pushRun(store, run.id(), events::add))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("gave up on S3 ")
          .hasMessageContaining("no answer in time (an attempt may take 300 ms");
      assertThat(server.accepted()).isEqualTo(2);
    }
    assertThat(events).extracting(S3Sync.Event::kind).containsExactly(S3Sync.Kind.WAITING, S3Sync.Kind.WAITING);
    assertThat(events.getFirst().detail()).startsWith("no answer from S3 at http://127.0.0.1:")
        .endsWith(" within 300 ms (up to 2 attempts)");
    assertThat(listing(store.root())).isEqualTo(before);
  }

  @Test
  void aSyncWhoseTimeHasRunOutMakesNoRequestAndSaysItGaveUp() throws Exception {
    RunStore store = RunStore.open(dir.resolve("store"));
    RunDir run = S3SyncTest.run(store);
    Map<Path, Long> before = listing(store.root());
    FakeTicker ticker = new FakeTicker();
    try (SilentServer server = new SilentServer();
        S3Sync sync = S3Sync.open(settings(server), Clock.systemUTC(), ticker, Duration.ofSeconds(20))) {
      ticker.advanceSeconds(20);
      assertThatThrownBy(() -> sync.pushRun(store, run.id(), S3Sync.Listener.none()))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("gave up: the sync's time ran out before ");
      assertThat(server.accepted()).isZero();
    }
    assertThat(listing(store.root())).isEqualTo(before);
  }

  @Test
  void timeLimitsAreCutToTheMostAllowedAndMustBePositive() {
    S3Settings.Limits l = S3Settings.Limits.standard().atMost(Duration.ofSeconds(20));
    assertThat(l).isEqualTo(new S3Settings.Limits(Duration.ofSeconds(5), Duration.ofSeconds(20),
        Duration.ofSeconds(20)));
    assertThatThrownBy(() -> new S3Settings.Limits(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessageContaining("must be positive");
    assertThatThrownBy(() -> new S3Settings.Limits(Duration.ofSeconds(1), Duration.ofSeconds(2),
        Duration.ofSeconds(1))).hasMessageContaining("is below its attempt's");
  }
}
