package io.gitm.store.s3;

import io.gitm.store.RunStore;
import io.gitm.store.S3Root;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * A process for {@link S3CrashTest} to kill: syncs a store and, once {@code PARTS} parts of an upload are in S3,
 * prints {@code waiting} and waits to be killed (for at most two minutes, then fails).
 *
 * <p>Arguments: endpoint, key prefix, store folder, parts.
 */
final class SyncUntilKilled {
  private SyncUntilKilled() {}

  public static void main(String[] args) throws Exception {
    S3Settings settings = S3Settings.of(S3Root.parse("s3://" + S3MockServer.BUCKET + "/" + args[1]))
        .withEndpoint(URI.create(args[0]))
        .withCredentials(new S3Settings.Keys(S3MockServer.ACCESS_KEY, S3MockServer.SECRET_KEY))
        .withRegion("us-east-1").withPartSize(S3Settings.MIN_PART_SIZE);
    int stopAfter = Integer.parseInt(args[3]);
    int[] parts = {0};
    try (S3Sync sync = S3Sync.open(settings, Clock.systemUTC())) {
      sync.sync(RunStore.open(Path.of(args[2])), e -> {
        if (e.kind() == S3Sync.Kind.PART) {
          System.out.println(e.detail());
          if (++parts[0] == stopAfter) {
            System.out.println("waiting");
            System.out.flush();
            try {
              Thread.sleep(Duration.ofMinutes(2));
            } catch (InterruptedException ignored) {
              Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("not killed within two minutes");
          }
        }
      });
    }
    throw new IllegalStateException("the sync ended before " + stopAfter + " parts");
  }
}
