package io.gitm.store.s3;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Puts one file's bytes at a key so that a reader never sees a part of them: a file up to the part size goes in one
 * request (S3 shows it whole or not at all), a larger one as a multipart upload, which S3 shows only once it is
 * completed. An interrupted multipart upload is continued, not restarted: the parts S3 already holds are kept where
 * they match the file (same size, ETag equal to the MD5 of the file's bytes there) and only the others are sent.
 *
 * <p>Which upload in progress belongs to which version of a file is kept in a marker object,
 * {@code .gitm-uploads/HASH.json} under the root, written right after the upload is created and deleted once it is
 * completed: an upload is continued only when its marker names the same sha256, size and part size as the file now.
 * An upload without such a marker (a crash came between its creation and the marker, or the file changed since) is
 * aborted.
 */
final class Uploader {
  static final String MARKERS = ".gitm-uploads/";
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  /** What a marker holds. */
  record Marker(String key, String uploadId, String sha256, long size, long partSize) {}

  /** What an upload did: how many parts it has and how many of them were already in S3. */
  record Result(int parts, int reused) {}

  private final Bucket bucket;
  private final S3Settings settings;
  private final S3Sync.Listener listener;

  Uploader(Bucket bucket, S3Settings settings, S3Sync.Listener listener) {
    this.bucket = bucket;
    this.settings = settings;
    this.listener = listener;
  }

  /** Uploads the first {@code size} bytes of {@code ch}, whose sha256 is {@code sha256}, to {@code key}. */
  Result upload(FileChannel ch, long size, String sha256, String key, String path) throws IOException {
    if (size <= settings.partSize()) {
      byte[] bytes = Digests.read(ch, 0, (int) size);
      if (!Digests.sha256(bytes).equals(sha256)) {
        throw new IOException(path + " changed while it was synced; run the sync again");
      }
      bucket.put(key, bytes, sha256);
      return new Result(1, 0);
    }
    long partSize = partSize(settings.partSize(), size);
    int count = (int) ((size + partSize - 1) / partSize);
    Marker want = new Marker(key, null, sha256, size, partSize);
    String uploadId = null;
    for (String id : bucket.uploads(key)) {
      Optional<Marker> m = marker(id);
      if (uploadId == null && m.isPresent() && m.get().sha256().equals(sha256) && m.get().size() == size
          && m.get().partSize() == partSize) {
        uploadId = id;
      } else {
        bucket.abort(key, id);
        bucket.delete(markerKey(id));
      }
    }
    Map<Integer, Bucket.Uploaded> held = new HashMap<>();
    if (uploadId != null) {
      for (Bucket.Uploaded p : bucket.parts(key, uploadId)) {
        held.put(p.number(), p);
      }
    } else {
      uploadId = bucket.create(key, sha256);
      Marker m = new Marker(key, uploadId, sha256, size, partSize);
      bucket.put(markerKey(uploadId), JSON.writeValueAsBytes(m), null);
    }
    List<CompletedPart> parts = new ArrayList<>(count);
    int reused = 0;
    for (int n = 1; n <= count; n++) {
      long pos = (n - 1) * partSize;
      int len = (int) Math.min(partSize, size - pos);
      byte[] bytes = Digests.read(ch, pos, len);
      byte[] md5 = Digests.md5(bytes, 0, len);
      String hex = Digests.hex(md5);
      Bucket.Uploaded have = held.get(n);
      String etag;
      if (have != null && have.size() == len && have.etag().equalsIgnoreCase(hex)) {
        etag = have.etag();
        reused++;
      } else {
        etag = bucket.uploadPart(key, uploadId, n, bytes, md5);
        if (!etag.equalsIgnoreCase(hex)) {
          throw new IOException("S3 stored part " + n + " of s3://" + bucket.name() + "/" + key + " with ETag " + etag
              + ", not the MD5 of its bytes (" + hex + ")");
        }
        listener.on(new S3Sync.Event(S3Sync.Kind.PART, path, len, "part " + n + " of " + count));
      }
      parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
    }
    bucket.complete(key, uploadId, parts);
    bucket.delete(markerKey(uploadId));
    return new Result(count, reused);
  }

  /**
   * Deletes the markers of uploads that are no longer in progress (completed, or aborted by a lifecycle rule), left
   * behind when a sync stopped between completing an upload and deleting its marker.
   */
  void sweepMarkers() throws IOException {
    for (String k : bucket.list(settings.key(MARKERS)).keySet()) {
      Optional<byte[]> b = bucket.get(k);
      if (b.isEmpty()) {
        continue;
      }
      Marker m;
      try {
        m = JSON.readValue(b.get(), Marker.class);
      } catch (tools.jackson.core.JacksonException e) {
        bucket.delete(k);
        continue;
      }
      if (!bucket.uploads(m.key()).contains(m.uploadId())) {
        bucket.delete(k);
      }
    }
  }

  /**
   * The part size for a file of {@code size} bytes: {@code configured}, or where S3's 10,000 parts would not hold the
   * file at that size, the smallest whole number of MiB that does.
   */
  static long partSize(long configured, long size) {
    long min = (size + S3Settings.MAX_PARTS - 1) / S3Settings.MAX_PARTS;
    long mib = 1L << 20;
    return Math.max(configured, (min + mib - 1) / mib * mib);
  }

  private Optional<Marker> marker(String uploadId) throws IOException {
    Optional<byte[]> b = bucket.get(markerKey(uploadId));
    if (b.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readValue(b.get(), Marker.class));
    } catch (tools.jackson.core.JacksonException e) {
      return Optional.empty();
    }
  }

  String markerKey(String uploadId) {
    return settings.key(MARKERS + Digests.sha256(uploadId.getBytes(StandardCharsets.UTF_8)) + ".json");
  }
}
