package io.gitm.store.s3;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The list of a synced folder's files as they are in S3 ({@code runs/ID/.gitm-manifest.json},
 * {@code traces/.gitm-manifest.json}, {@code telemetry/.gitm-manifest.json}): each file's path in the folder, size,
 * sha256 and local modification time. It is written after every file it lists is in S3, so a reader that goes by it
 * never takes an object in flux for part of the folder.
 *
 * @param format   {@link #FORMAT}
 * @param folder   the folder's path in the store ({@code runs/ID})
 * @param syncedAt when it was written (ISO-8601, UTC)
 * @param files    the files, by path
 */
record Manifest(String format, String folder, String syncedAt, List<Entry> files) {
  static final String NAME = ".gitm-manifest.json";
  static final String FORMAT = "gitm-s3-manifest/1";
  private static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  /** One file: its path under the folder ({@code /}-separated), size, sha256 and local mtime in milliseconds. */
  record Entry(String path, long size, String sha256, long modified) {}

  Manifest {
    files = List.copyOf(files);
  }

  Map<String, Entry> byPath() {
    return files.stream().collect(Collectors.toMap(Entry::path, Function.identity(), (a, b) -> b));
  }

  byte[] toJson() {
    return JSON.writeValueAsBytes(this);
  }

  /** Parses a manifest; null when the bytes are not one of this format. */
  static Manifest parse(byte[] bytes) {
    try {
      Manifest m = JSON.readValue(bytes, Manifest.class);
      return m != null && FORMAT.equals(m.format()) && m.files() != null ? m : null;
    } catch (tools.jackson.core.JacksonException | NullPointerException e) {
      return null;
    }
  }
}
