package io.gitm.workloads.kit;

/**
 * What a file is when it is a well-known other kind than a workload reads, from its first bytes (magic numbers), so
 * that a workload can name a wrong file as what it is ("is gzip-compressed", "is a PNG image").
 */
public final class FileKinds {
  private FileKinds() {}

  /** What a file whose first bytes are {@code head} is, when it is a known other kind; else null. */
  public static String sniff(byte[] head) {
    if (starts(head, 0x1f, 0x8b)) {
      return "gzip-compressed (decompress it first)";
    }
    if (starts(head, 0x89, 'P', 'N', 'G')) {
      return "a PNG image";
    }
    if (starts(head, 0xff, 0xd8, 0xff)) {
      return "a JPEG image";
    }
    if (starts(head, 'P', 'K', 3, 4)) {
      return "a ZIP archive (extract it first)";
    }
    if (starts(head, 0x93, 'N', 'U', 'M', 'P', 'Y')) {
      return "a NumPy .npy array";
    }
    if (starts(head, 0x28, 0xb5, 0x2f, 0xfd)) {
      return "zstd-compressed (decompress it first)";
    }
    if (starts(head, 0xfd, '7', 'z', 'X', 'Z', 0)) {
      return "xz-compressed (decompress it first)";
    }
    if (starts(head, 'B', 'Z', 'h')) {
      return "bzip2-compressed (decompress it first)";
    }
    if (starts(head, '#', ' ', '.', 'P', 'C', 'D') || starts(head, 'V', 'E', 'R', 'S', 'I', 'O', 'N')) {
      return "a PCD point cloud (convert it to KITTI's .bin)";
    }
    if (starts(head, 'p', 'l', 'y', '\n') || starts(head, 'L', 'A', 'S', 'F')) {
      return "a PLY or LAS point cloud (convert it to KITTI's .bin)";
    }
    return null;
  }

  public static boolean starts(byte[] b, int... want) {
    if (b.length < want.length) {
      return false;
    }
    for (int i = 0; i < want.length; i++) {
      if ((b[i] & 0xff) != want[i]) {
        return false;
      }
    }
    return true;
  }

}
