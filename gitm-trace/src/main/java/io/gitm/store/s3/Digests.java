package io.gitm.store.s3;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 (what pins and manifests hold) and MD5 (what S3 checks each upload against, and makes part ETags of). */
final class Digests {
  private Digests() {}

  static MessageDigest sha256() {
    return digest("SHA-256");
  }

  static byte[] md5(byte[] bytes, int off, int len) {
    MessageDigest md = digest("MD5");
    md.update(bytes, off, len);
    return md.digest();
  }

  /** The sha256 of the first {@code size} bytes of a file, in lowercase hex. */
  static String sha256(FileChannel ch, long size) throws IOException {
    MessageDigest md = sha256();
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    long pos = 0;
    while (pos < size) {
      buf.clear().limit((int) Math.min(buf.capacity(), size - pos));
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new IOException("the file shrank while it was read (" + pos + " of " + size + " bytes)");
      }
      pos += n;
      md.update(buf.flip());
    }
    return hex(md.digest());
  }

  static String sha256(byte[] bytes) {
    return hex(sha256().digest(bytes));
  }

  /** Reads {@code len} bytes at {@code pos}. */
  static byte[] read(FileChannel ch, long pos, int len) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(len);
    while (buf.hasRemaining()) {
      int n = ch.read(buf, pos + buf.position());
      if (n < 0) {
        throw new IOException("the file shrank while it was read (" + (pos + buf.position()) + " bytes)");
      }
    }
    return buf.array();
  }

  static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static MessageDigest digest(String name) {
    try {
      return MessageDigest.getInstance(name);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this Java runtime has no " + name, e);
    }
  }
}
