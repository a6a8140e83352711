package io.gitm.store.s3;

import io.gitm.api.Ticker;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The S3 operations the sync uses, on one bucket, with S3's failures as {@link IOException}s whose message is one
 * line naming the operation and the object. A missing object is an empty {@link Optional}, not a failure. Every
 * request is retried by the client's standard strategy: throttling, 5xx answers and broken connections, with
 * exponential backoff and jitter, up to {@link S3Settings#maxAttempts()}.
 */
final class Bucket implements AutoCloseable {
  /** The object metadata ({@code x-amz-meta-gitm-sha256}) that holds the sha256 of an object's bytes. */
  static final String SHA256 = "gitm-sha256";

  /** An object's size and, where gitm wrote it, the sha256 of its bytes (else null). */
  record Head(long size, String sha256) {}

  /** A part already uploaded: its number, size and ETag (unquoted). */
  record Uploaded(int number, long size, String etag) {}

  private final S3Client s3;
  private final SdkHttpClient http;
  private final String bucket;
  private final S3Settings.Limits limits;
  private final Ticker ticker;
  private final long until;

  private Bucket(S3Client s3, SdkHttpClient http, String bucket, S3Settings.Limits limits, Ticker ticker,
      long until) {
    this.s3 = s3;
    this.http = http;
    this.bucket = bucket;
    this.limits = limits;
    this.ticker = ticker;
    this.until = until;
  }

  /**
   * A client for the settings' bucket whose every call ends by {@code untilNanos} on {@code ticker} (or has the
   * settings' limits only, with {@link Long#MAX_VALUE}); {@code waiting} hears of each attempt S3 did not answer in
   * time.
   */
  static Bucket open(S3Settings settings, Ticker ticker, long untilNanos, Consumer<String> waiting) {
    S3Settings.Limits limits = settings.limits();
    SdkHttpClient http = new Watched(UrlConnectionHttpClient.builder().connectionTimeout(limits.connect())
        .socketTimeout(limits.attempt()).build(), settings, waiting);
    S3ClientBuilder b = S3Client.builder()
        .httpClient(http)
        .credentialsProvider(credentials(settings))
        .region(region(settings))
        .forcePathStyle(settings.pathStyle())
        // integrity is checked by Content-MD5 on every upload and by sha256 on every download; the newer flexible
        // checksums are left off because not every S3-compatible server takes them
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
            .maxAttempts(settings.maxAttempts())
            .backoffStrategy(BackoffStrategy.exponentialDelay(settings.baseDelay(), settings.maxDelay()))
            .throttlingBackoffStrategy(BackoffStrategy.exponentialDelay(settings.baseDelay(), settings.maxDelay()))
            .circuitBreakerEnabled(false)
            .build())
            .apiCallTimeout(limits.call())
            .apiCallAttemptTimeout(limits.connect().plus(limits.attempt())));
    if (settings.endpoint() != null) {
      b.endpointOverride(settings.endpoint());
    } else {
      b.crossRegionAccessEnabled(true);
    }
    return new Bucket(b.build(), http, settings.root().bucket(), limits, ticker, untilNanos);
  }

  /**
   * The HTTP client, telling of each attempt S3 did not answer in time (then the SDK's retry strategy tries again or
   * gives up).
   */
  private record Watched(SdkHttpClient inner, S3Settings settings, Consumer<String> waiting) implements SdkHttpClient {
    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
      ExecutableHttpRequest attempt = inner.prepareRequest(request);
      return new ExecutableHttpRequest() {
        @Override
        public HttpExecuteResponse call() throws IOException {
          try {
            return attempt.call();
          } catch (SocketTimeoutException e) {
            waiting.accept("no answer from S3" + (settings.endpoint() == null ? "" : " at " + settings.endpoint())
                + " to " + request.httpRequest().method() + " " + request.httpRequest().encodedPath() + " within "
                + seconds(settings.limits().attempt()) + " (up to " + settings.maxAttempts() + " attempts)");
            throw e;
          }
        }

        @Override
        public void abort() {
          attempt.abort();
        }
      };
    }

    @Override
    public String clientName() {
      return inner.clientName();
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  private static AwsCredentialsProvider credentials(S3Settings settings) {
    S3Settings.Keys k = settings.credentials();
    return k == null ? DefaultCredentialsProvider.builder().build()
        : StaticCredentialsProvider.create(AwsBasicCredentials.create(k.accessKeyId(), k.secretAccessKey()));
  }

  /** The signing region: given, else the environment or system property, else the profile, else us-east-1. */
  private static Region region(S3Settings settings) {
    if (settings.region() != null) {
      return Region.of(settings.region());
    }
    for (var p : List.of(new SystemSettingsRegionProvider(), new AwsProfileRegionProvider())) {
      try {
        return p.getRegion();
      } catch (SdkException | IllegalArgumentException none) {
        // not configured there
      }
    }
    return Region.US_EAST_1;
  }

  String name() {
    return bucket;
  }

  Optional<Head> head(String key) throws IOException {
    try {
      HeadObjectResponse r = s3.headObject(h -> h.bucket(bucket).key(key)
          .overrideConfiguration(limit("HEAD", key)));
      return Optional.of(new Head(r.contentLength(), r.metadata().get(SHA256)));
    } catch (SdkException e) {
      if (notFound(e)) {
        return Optional.empty();
      }
      throw failure("HEAD", key, e);
    }
  }

  /** A small object's bytes (a pin, a manifest, a marker). */
  Optional<byte[]> get(String key) throws IOException {
    try {
      return Optional.of(s3.getObjectAsBytes(g -> g.bucket(bucket).key(key)
          .overrideConfiguration(limit("GET", key))).asByteArray());
    } catch (SdkException e) {
      if (notFound(e)) {
        return Optional.empty();
      }
      throw failure("GET", key, e);
    }
  }

  /** Streams an object's bytes to {@code out}; false when there is no such object. */
  boolean download(String key, OutputStream out) throws IOException {
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = s3.getObject(g -> g.bucket(bucket).key(key).overrideConfiguration(limit("GET", key)));
    } catch (SdkException e) {
      if (notFound(e)) {
        return false;
      }
      throw failure("GET", key, e);
    }
    try (in) {
      in.transferTo(out);
      return true;
    } catch (SdkException e) {
      throw failure("GET", key, e);
    } catch (IOException e) {
      throw new IOException("S3 GET s3://" + bucket + "/" + key + " broke off: " + firstLine(e.getMessage()), e);
    }
  }

  /** One request: the object appears whole or not at all. */
  void put(String key, byte[] bytes, String sha256) throws IOException {
    try {
      s3.putObject(p -> p.bucket(bucket).key(key).contentMD5(base64(Digests.md5(bytes, 0, bytes.length)))
          .metadata(sha256 == null ? Map.of() : Map.of(SHA256, sha256)).overrideConfiguration(limit("PUT", key)),
          RequestBody.fromBytes(bytes));
    } catch (SdkException e) {
      throw failure("PUT", key, e);
    }
  }

  void delete(String key) throws IOException {
    try {
      s3.deleteObject(d -> d.bucket(bucket).key(key).overrideConfiguration(limit("DELETE", key)));
    } catch (SdkException e) {
      if (!notFound(e)) {
        throw failure("DELETE", key, e);
      }
    }
  }

  /** Every object under {@code prefix}: key → size, in key order. */
  Map<String, Long> list(String prefix) throws IOException {
    Map<String, Long> out = new LinkedHashMap<>();
    try {
      for (S3Object o : s3.listObjectsV2Paginator(l -> l.bucket(bucket).prefix(prefix)
          .overrideConfiguration(limit("LIST", prefix))).contents()) {
        out.put(o.key(), o.size());
      }
    } catch (SdkException e) {
      throw failure("LIST", prefix, e);
    }
    return out;
  }

  /** The ids of the multipart uploads in progress for exactly {@code key}, oldest first. */
  List<String> uploads(String key) throws IOException {
    List<String> ids = new ArrayList<>();
    try {
      String keyMarker = null;
      String idMarker = null;
      while (true) {
        String km = keyMarker;
        String im = idMarker;
        ListMultipartUploadsResponse r = s3.listMultipartUploads(l -> l.bucket(bucket).prefix(key).keyMarker(km)
            .uploadIdMarker(im).overrideConfiguration(limit("LIST UPLOADS", key)));
        r.uploads().stream().filter(u -> u.key().equals(key))
            .sorted(java.util.Comparator.comparing(MultipartUpload::initiated,
                java.util.Comparator.nullsLast(java.util.Comparator.naturalOrder())))
            .forEach(u -> ids.add(u.uploadId()));
        if (!Boolean.TRUE.equals(r.isTruncated())) {
          return ids;
        }
        keyMarker = r.nextKeyMarker();
        idMarker = r.nextUploadIdMarker();
      }
    } catch (SdkException e) {
      throw failure("LIST UPLOADS", key, e);
    }
  }

  /** The parts an upload in progress holds. */
  List<Uploaded> parts(String key, String uploadId) throws IOException {
    List<Uploaded> out = new ArrayList<>();
    try {
      Integer marker = null;
      while (true) {
        Integer m = marker;
        ListPartsResponse r = s3.listParts(l -> l.bucket(bucket).key(key).uploadId(uploadId).partNumberMarker(m)
            .overrideConfiguration(limit("LIST PARTS", key)));
        for (Part p : r.parts()) {
          out.add(new Uploaded(p.partNumber(), p.size(), unquote(p.eTag())));
        }
        if (!Boolean.TRUE.equals(r.isTruncated())) {
          return out;
        }
        marker = r.nextPartNumberMarker();
      }
    } catch (SdkException e) {
      if (notFound(e)) {
        return List.of();
      }
      throw failure("LIST PARTS", key, e);
    }
  }

  /** Starts a multipart upload; nothing is visible at {@code key} until {@link #complete}. */
  String create(String key, String sha256) throws IOException {
    try {
      return s3.createMultipartUpload(c -> c.bucket(bucket).key(key).metadata(Map.of(SHA256, sha256))
          .overrideConfiguration(limit("CREATE UPLOAD", key))).uploadId();
    } catch (SdkException e) {
      throw failure("CREATE UPLOAD", key, e);
    }
  }

  /** Uploads one part; returns its ETag (unquoted), which S3 makes the MD5 of the part's bytes. */
  String uploadPart(String key, String uploadId, int number, byte[] bytes, byte[] md5) throws IOException {
    try {
      return unquote(s3.uploadPart(u -> u.bucket(bucket).key(key).uploadId(uploadId).partNumber(number)
          .contentMD5(base64(md5)).contentLength((long) bytes.length).overrideConfiguration(limit("UPLOAD PART", key)),
          RequestBody.fromBytes(bytes)).eTag());
    } catch (SdkException e) {
      throw failure("UPLOAD PART " + number, key, e);
    }
  }

  /** Joins the parts: the object appears at {@code key}, whole. */
  void complete(String key, String uploadId, List<CompletedPart> parts) throws IOException {
    try {
      s3.completeMultipartUpload(c -> c.bucket(bucket).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts)).overrideConfiguration(limit("COMPLETE UPLOAD", key)));
    } catch (SdkException e) {
      throw failure("COMPLETE UPLOAD", key, e);
    }
  }

  void abort(String key, String uploadId) throws IOException {
    try {
      s3.abortMultipartUpload(a -> a.bucket(bucket).key(key).uploadId(uploadId)
          .overrideConfiguration(limit("ABORT UPLOAD", key)));
    } catch (SdkException e) {
      if (!notFound(e)) {
        throw failure("ABORT UPLOAD", key, e);
      }
    }
  }

  @Override
  public void close() {
    s3.close();
    http.close();
  }

  /**
   * The time limits of one call: the settings', shortened to what is left before the deadline; a call past the
   * deadline is not made ({@link OutOfTime}).
   */
  private AwsRequestOverrideConfiguration limit(String op, String key) {
    Duration call = limits.call();
    if (until != Long.MAX_VALUE) {
      long left = until - ticker.nanos();
      if (left <= 0) {
        throw new OutOfTime("the sync's time ran out before " + op + " s3://" + bucket + "/" + key);
      }
      call = Duration.ofNanos(Math.min(left, call.toNanos()));
    }
    Duration most = limits.connect().plus(limits.attempt());
    Duration attempt = call.compareTo(most) < 0 ? call : most;
    return AwsRequestOverrideConfiguration.builder().apiCallTimeout(call).apiCallAttemptTimeout(attempt).build();
  }

  /** A call that was not made because the sync's time had run out. */
  static final class OutOfTime extends SdkClientException {
    OutOfTime(String message) {
      super(SdkClientException.builder().message(message));
    }
  }

  static String seconds(Duration d) {
    return d.toMillis() < 10_000 ? d.toMillis() + " ms" : d.toSeconds() + " s";
  }

  private static boolean notFound(SdkException e) {
    return e instanceof AwsServiceException a && a.statusCode() == 404
        && !"NoSuchBucket".equals(a.awsErrorDetails() == null ? null : a.awsErrorDetails().errorCode());
  }

  private IOException failure(String op, String key, SdkException e) {
    String why;
    if (e instanceof AwsServiceException a) {
      String code = a.awsErrorDetails() == null ? null : a.awsErrorDetails().errorCode();
      why = switch (a.statusCode()) {
        case 403 -> "access denied (" + code + "): check the credentials and the bucket's policy";
        case 404 -> "NoSuchBucket".equals(code) ? "the bucket " + bucket + " does not exist"
            : "not found (" + code + ")";
        default -> "HTTP " + a.statusCode() + (code == null ? "" : " " + code) + ": " + firstLine(
            a.awsErrorDetails() == null ? a.getMessage() : a.awsErrorDetails().errorMessage());
      };
    } else if (e instanceof OutOfTime) {
      return new IOException("gave up: " + e.getMessage(), e);
    } else if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException
        || cause(e, SocketTimeoutException.class)) {
      return new IOException("gave up on S3 " + op + " s3://" + bucket + "/" + key + ": no answer in time (an"
          + " attempt may take " + seconds(limits.attempt()) + ", a call with its retries " + seconds(limits.call())
          + ", at most what the sync had left)", e);
    } else if (e.getMessage() != null && e.getMessage().startsWith("Unable to load credentials")) {
      why = "no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run with"
          + " a role)";
    } else {
      why = firstLine(e.getMessage());
    }
    return new IOException("S3 " + op + " s3://" + bucket + "/" + key + " failed: " + why, e);
  }

  private static boolean cause(Throwable t, Class<? extends Throwable> kind) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (kind.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  static String firstLine(String s) {
    if (s == null || s.isBlank()) {
      return "no detail";
    }
    String t = s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl).strip();
  }

  static String unquote(String etag) {
    return etag == null ? "" : etag.replace("\"", "");
  }

  private static String base64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }
}
