package io.gitm.store;

import java.util.regex.Pattern;

/** A parsed {@code GITM_S3_ROOT}: {@code s3://bucket[/prefix]}, with the bucket named by S3's rules. */
public record S3Root(String bucket, String prefix) {
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  /** Parses; the exception's message is one line fit for a user. */
  public static S3Root parse(String uri) {
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException("GITM_S3_ROOT is empty: unset it or give s3://bucket/prefix");
    }
    if (!uri.startsWith("s3://")) {
      throw new IllegalArgumentException("GITM_S3_ROOT '" + uri + "' must start with s3:// (e.g. s3://my-bucket/gitm)");
    }
    String rest = uri.substring(5);
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1).replaceAll("/+$", "");
    if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
      throw new IllegalArgumentException("GITM_S3_ROOT '" + uri + "' has an invalid bucket name '" + bucket
          + "' (3–63 lowercase letters, digits, dots or hyphens)");
    }
    if (prefix.contains("//")) {
      throw new IllegalArgumentException("GITM_S3_ROOT '" + uri + "' has an empty path segment");
    }
    return new S3Root(bucket, prefix);
  }

  @Override
  public String toString() {
    return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
  }
}
