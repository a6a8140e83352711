package io.gitm.store.s3;

import java.nio.charset.StandardCharsets;

/**
 * A dataset's pin, {@code NAME.sha256}: one {@code sha256sum} line, {@code HEX  NAME} (or {@code HEX *NAME}), as the
 * workloads write beside their datasets.
 */
final class Pins {
  private Pins() {}

  /** The pinned sha256, or null when the bytes are not one sha256sum line for {@code name}. */
  static String parse(byte[] bytes, String name) {
    String line = new String(bytes, StandardCharsets.US_ASCII).strip();
    String[] parts = line.split("\\s+", 2);
    if (parts.length != 2 || !parts[0].matches("[0-9a-f]{64}") || !parts[1].replaceFirst("^\\*", "").equals(name)) {
      return null;
    }
    return parts[0];
  }

  static byte[] line(String sha256, String name) {
    return (sha256 + "  " + name + "\n").getBytes(StandardCharsets.US_ASCII);
  }
}
