package io.gitm.store.s3;

import io.gitm.store.S3Root;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;

/**
 * Where and how the run store syncs to S3.
 *
 * @param root        {@code s3://bucket/prefix} ({@code GITM_S3_ROOT})
 * @param endpoint    an S3-compatible server's URL ({@code GITM_S3_ENDPOINT}), or null for AWS itself
 * @param pathStyle   address the bucket in the path ({@code http://host/bucket/key}) rather than in the host name;
 *                    what most S3-compatible servers need
 * @param region      the signing region, or null: {@code AWS_REGION} / {@code aws.region} / the profile, else
 *                    {@code us-east-1} with cross-region access to buckets elsewhere
 * @param partSize    bytes per part of a multipart upload; files up to this size go in one request
 * @param maxAttempts attempts per request (the first and the retries)
 * @param baseDelay   the first retry's backoff; it doubles per attempt (with jitter) up to {@code maxDelay}
 * @param maxDelay    the longest backoff between two attempts
 * @param credentials fixed keys, or null for the standard chain (environment, system properties, profile, web
 *                    identity, container and instance credentials)
 * @param limits      how long S3 may take to connect, to answer one attempt, and to finish one call with its retries
 */
public record S3Settings(S3Root root, URI endpoint, boolean pathStyle, String region, long partSize, int maxAttempts,
    Duration baseDelay, Duration maxDelay, Keys credentials, Limits limits) {

  /** S3's smallest part (all but the last part of a multipart upload are at least this big). */
  public static final long MIN_PART_SIZE = 5L << 20;
  /** S3's largest number of parts in one multipart upload. */
  static final int MAX_PARTS = 10_000;

  /** An access key pair. */
  public record Keys(String accessKeyId, String secretAccessKey) {
    public Keys {
      if (accessKeyId == null || accessKeyId.isBlank() || secretAccessKey == null || secretAccessKey.isBlank()) {
        throw new IllegalArgumentException("S3 credentials need an access key id and a secret access key");
      }
    }

    @Override
    public String toString() {
      return "Keys[" + accessKeyId + ", secret hidden]";
    }
  }

  /**
   * How long a request may wait on S3, so that a server that accepts connections and never answers cannot hold the
   * sync: {@code connect} to open a connection, {@code attempt} for one attempt (and between two bytes of its
   * answer), {@code call} for one call with all its retries.
   */
  public record Limits(Duration connect, Duration attempt, Duration call) {
    public Limits {
      for (Duration d : new Duration[] {connect, attempt, call}) {
        if (d == null || d.isNegative() || d.isZero()) {
          throw new IllegalArgumentException("S3 time limits must be positive, got " + d);
        }
      }
      if (call.compareTo(attempt) < 0) {
        throw new IllegalArgumentException("an S3 call's time limit (" + call + ") is below its attempt's ("
            + attempt + ")");
      }
    }

    /** Connecting 5 s, an attempt 60 s, a call with its retries 3 min. */
    public static Limits standard() {
      return new Limits(Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofMinutes(3));
    }

    /** These limits, none longer than {@code most}. */
    public Limits atMost(Duration most) {
      return new Limits(min(connect, most), min(attempt, most), min(call, most));
    }

    private static Duration min(Duration a, Duration b) {
      return a.compareTo(b) <= 0 ? a : b;
    }
  }

  public S3Settings {
    if (limits == null) {
      throw new IllegalArgumentException("no S3 time limits");
    }
    if (root == null) {
      throw new IllegalArgumentException("no S3 root: set GITM_S3_ROOT to s3://bucket/prefix");
    }
    if (partSize < MIN_PART_SIZE) {
      throw new IllegalArgumentException("S3 part size " + partSize + " is below S3's minimum of 5 MiB");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("S3 attempts per request must be at least 1, not " + maxAttempts);
    }
    if (baseDelay.isNegative() || maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException("S3 retry backoff must be 0 or more and at most its maximum ("
          + baseDelay + " > " + maxDelay + ")");
    }
  }

  /**
   * The defaults for a root: AWS itself, 8 MiB parts, 6 attempts with backoff from 200 ms to 20 s, the
   * {@linkplain Limits#standard() standard time limits}.
   */
  public static S3Settings of(S3Root root) {
    return new S3Settings(root, null, false, null, 8L << 20, 6, Duration.ofMillis(200), Duration.ofSeconds(20), null,
        Limits.standard());
  }

  /**
   * The settings the environment gives: {@code GITM_S3_ROOT} (required), {@code GITM_S3_ENDPOINT} (optional; implies
   * path-style access). The exception's message is one line fit for a user.
   */
  public static S3Settings fromEnvironment(Map<String, String> env) {
    String root = env.get("GITM_S3_ROOT");
    if (root == null) {
      throw new IllegalArgumentException("GITM_S3_ROOT is not set: set it to s3://bucket/prefix to sync the run store");
    }
    S3Settings s = of(S3Root.parse(root));
    String endpoint = env.get("GITM_S3_ENDPOINT");
    return endpoint == null || endpoint.isBlank() ? s : s.withEndpoint(parseEndpoint("GITM_S3_ENDPOINT", endpoint));
  }

  /**
   * Parses an endpoint URL ({@code http://host:port} or {@code https://host}); {@code what} names where it came from
   * in the one-line message of a bad one.
   */
  public static URI parseEndpoint(String what, String url) {
    URI u;
    try {
      u = new URI(url.strip());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(what + " '" + url + "' is not a URL: " + e.getReason());
    }
    if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))) {
      throw new IllegalArgumentException(what + " '" + url + "' must start with http:// or https://");
    }
    if (u.getHost() == null) {
      throw new IllegalArgumentException(what + " '" + url + "' has no host (e.g. http://127.0.0.1:9090)");
    }
    if (u.getRawQuery() != null || u.getRawFragment() != null || (u.getRawPath() != null
        && !u.getRawPath().isEmpty() && !u.getRawPath().equals("/"))) {
      throw new IllegalArgumentException(what + " '" + url + "' must be scheme://host[:port] only, without a path");
    }
    return URI.create(u.getScheme() + "://" + u.getRawAuthority());
  }

  /** Talk to an S3-compatible server at {@code endpoint}, path-style. */
  public S3Settings withEndpoint(URI endpoint) {
    return new S3Settings(root, endpoint, true, region, partSize, maxAttempts, baseDelay, maxDelay, credentials,
        limits);
  }

  public S3Settings withCredentials(Keys keys) {
    return new S3Settings(root, endpoint, pathStyle, region, partSize, maxAttempts, baseDelay, maxDelay, keys, limits);
  }

  public S3Settings withRegion(String region) {
    return new S3Settings(root, endpoint, pathStyle, region, partSize, maxAttempts, baseDelay, maxDelay, credentials,
        limits);
  }

  public S3Settings withPartSize(long bytes) {
    return new S3Settings(root, endpoint, pathStyle, region, bytes, maxAttempts, baseDelay, maxDelay, credentials,
        limits);
  }

  public S3Settings withRetries(int attempts, Duration base, Duration max) {
    return new S3Settings(root, endpoint, pathStyle, region, partSize, attempts, base, max, credentials,
        limits);
  }

  public S3Settings withLimits(Limits limits) {
    return new S3Settings(root, endpoint, pathStyle, region, partSize, maxAttempts, baseDelay, maxDelay, credentials,
        limits);
  }

  /** The object key of a path relative to the store's root ({@code runs/ID/run.json}). */
  String key(String relative) {
    return root.prefix().isEmpty() ? relative : root.prefix() + "/" + relative;
  }

  /** The store path of an object key under the root, or null when the key lies outside it. */
  String relative(String key) {
    if (root.prefix().isEmpty()) {
      return key;
    }
    String p = root.prefix() + "/";
    return key.startsWith(p) ? key.substring(p.length()) : null;
  }

  /** Where the objects go, in words: {@code s3://b/p} or {@code s3://b/p at http://host:port}. */
  public String describe() {
    return root + (endpoint == null ? "" : " at " + endpoint + (pathStyle ? " (path-style)" : ""));
  }
}
