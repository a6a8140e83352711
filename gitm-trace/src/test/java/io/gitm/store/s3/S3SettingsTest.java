package io.gitm.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.store.S3Root;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class S3SettingsTest {
  @Test
  void environmentGivesTheRootAndAnEndpointThatImpliesPathStyle() {
    S3Settings s = S3Settings.fromEnvironment(Map.of("GITM_S3_ROOT", "s3://my-bucket/gitm/lab",
        "GITM_S3_ENDPOINT", "http://127.0.0.1:9090/"));

    assertThat(s.root()).isEqualTo(new S3Root("my-bucket", "gitm/lab"));
    assertThat(s.endpoint()).isEqualTo(URI.create("http://127.0.0.1:9090"));
    assertThat(s.pathStyle()).isTrue();
    assertThat(s.credentials()).isNull();
    assertThat(s.describe()).isEqualTo("s3://my-bucket/gitm/lab at http://127.0.0.1:9090 (path-style)");
  }

  @Test
  void withoutAnEndpointItIsAwsWithVirtualHostedBuckets() {
    S3Settings s = S3Settings.fromEnvironment(Map.of("GITM_S3_ROOT", "s3://my-bucket"));

    assertThat(s.endpoint()).isNull();
    assertThat(s.pathStyle()).isFalse();
    assertThat(s.describe()).isEqualTo("s3://my-bucket");
  }

  @Test
  void missingOrMalformedSettingsAreOneLineErrorsNamingTheVariable() {
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of()))
        .hasMessage("GITM_S3_ROOT is not set: set it to s3://bucket/prefix to sync the run store");
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("GITM_S3_ROOT", "https://x/y")))
        .hasMessageStartingWith("GITM_S3_ROOT 'https://x/y' must start with s3://");
    for (String bad : List.of("127.0.0.1:9090", "ftp://host", "http://", "http://host/some/path", "http://h:9/?a=b",
        "http://bad host")) {
      assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("GITM_S3_ROOT", "s3://b-1", "GITM_S3_ENDPOINT", bad)))
          .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("GITM_S3_ENDPOINT '" + bad + "'")
          .hasMessageNotContaining("\n");
    }
  }

  @Test
  void partsBelowS3sMinimumAndZeroAttemptsAreRefused() {
    S3Settings s = S3Settings.of(S3Root.parse("s3://b-1/p"));
    assertThatThrownBy(() -> s.withPartSize(1 << 20)).hasMessageContaining("below S3's minimum of 5 MiB");
    assertThatThrownBy(() -> s.withRetries(0, Duration.ZERO, Duration.ZERO)).hasMessageContaining("at least 1");
    assertThatThrownBy(() -> s.withRetries(3, Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("at most its maximum");
  }

  @Test
  void keysMapStorePathsUnderThePrefixAndBack() {
    S3Settings s = S3Settings.of(S3Root.parse("s3://b-1/team/gitm"));
    assertThat(s.key("runs/r1/run.json")).isEqualTo("team/gitm/runs/r1/run.json");
    assertThat(s.relative("team/gitm/runs/r1/run.json")).isEqualTo("runs/r1/run.json");
    assertThat(s.relative("team/gitmx/runs/r1/run.json")).isNull();
    S3Settings bare = S3Settings.of(S3Root.parse("s3://b-1"));
    assertThat(bare.key("traces/t.gtrace")).isEqualTo("traces/t.gtrace");
    assertThat(bare.relative("traces/t.gtrace")).isEqualTo("traces/t.gtrace");
  }

  @Test
  void theSecretKeyIsNeverPrinted() {
    assertThat(new S3Settings.Keys("AKIDEXAMPLE", "wJalrXUtnFEMI").toString()).doesNotContain("wJalrXUtnFEMI");
    assertThatThrownBy(() -> new S3Settings.Keys("AKIDEXAMPLE", " ")).hasMessageContaining("secret access key");
  }

  @Test
  void partSizeGrowsInWholeMebibytesWhereTenThousandPartsWouldNotHoldTheFile() {
    long eight = 8L << 20;
    assertThat(Uploader.partSize(eight, 1L << 30)).isEqualTo(eight);
    assertThat(Uploader.partSize(eight, 10_000 * eight)).isEqualTo(eight);
    long big = 200L << 30; // 200 GiB: 8 MiB parts would need 25,600
    long p = Uploader.partSize(eight, big);
    assertThat(p % (1 << 20)).isZero();
    assertThat((big + p - 1) / p).isLessThanOrEqualTo(10_000);
    assertThat((big + (p - (1 << 20)) - 1) / (p - (1 << 20))).isGreaterThan(10_000);
  }

  @Test
  void pinsAreOneSha256sumLineForTheirFile() {
    String sha = "a".repeat(64);
    assertThat(Pins.parse((sha + "  day.itch\n").getBytes(StandardCharsets.US_ASCII), "day.itch")).isEqualTo(sha);
    assertThat(Pins.parse((sha + " *day.itch").getBytes(StandardCharsets.US_ASCII), "day.itch")).isEqualTo(sha);
    assertThat(Pins.parse((sha + "  other.itch").getBytes(StandardCharsets.US_ASCII), "day.itch")).isNull();
    assertThat(Pins.parse("not a hash  day.itch".getBytes(StandardCharsets.US_ASCII), "day.itch")).isNull();
    assertThat(new String(Pins.line(sha, "day.itch"), StandardCharsets.US_ASCII)).isEqualTo(sha + "  day.itch\n");
  }

  @Test
  void aManifestOfAnotherFormatOrNotJsonIsTakenForNone() {
    assertThat(Manifest.parse("{\"format\":\"other/1\",\"folder\":\"x\",\"syncedAt\":\"t\",\"files\":[]}"
        .getBytes(StandardCharsets.UTF_8))).isNull();
    assertThat(Manifest.parse("{not json".getBytes(StandardCharsets.UTF_8))).isNull();
    assertThat(Manifest.parse("{\"format\":\"gitm-s3-manifest/1\"}".getBytes(StandardCharsets.UTF_8))).isNull();
    Manifest m = new Manifest(Manifest.FORMAT, "traces", "2026-11-30T12:00:00Z",
        List.of(new Manifest.Entry("a.gtrace", 3, "b".repeat(64), 17)));
    assertThat(Manifest.parse(m.toJson())).isEqualTo(m);
  }
}
