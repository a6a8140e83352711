package io.gitm.workloads.kitti;

/** A KITTI file that cannot be read: one line naming the file and the byte offset or line where it goes wrong. */
final class KittiFormatException extends RuntimeException {
  KittiFormatException(String message) {
    super(message);
  }
}
