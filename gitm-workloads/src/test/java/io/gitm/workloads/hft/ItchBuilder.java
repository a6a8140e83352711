package io.gitm.workloads.hft;

import java.io.ByteArrayOutputStream;

/** Builds small ITCH 5.0 inputs by hand for tests, in a chosen framing. */
final class ItchBuilder {
  enum Prefix {
    LENGTH, ZERO, NONE
  }

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final Prefix prefix;
  private long ts = 1;

  ItchBuilder(Prefix prefix) {
    this.prefix = prefix;
  }

  /** A zeroed message of {@code type} with its header filled in; fill fields with Itch.put* then {@link #add}. */
  byte[] message(char type, int locate) {
    byte[] m = new byte[Itch.length(type)];
    m[0] = (byte) type;
    Itch.put16(m, 1, locate);
    Itch.put48(m, 5, ts++);
    return m;
  }

  ItchBuilder add(byte[] m) {
    return add(m, prefix == Prefix.LENGTH ? m.length : 0);
  }

  ItchBuilder add(byte[] m, int prefixValue) {
    if (prefix != Prefix.NONE) {
      out.write(prefixValue >>> 8);
      out.write(prefixValue & 0xff);
    }
    out.writeBytes(m);
    return this;
  }

  ItchBuilder directory(int locate, String symbol) {
    byte[] m = message('R', locate);
    for (int i = 0; i < 8; i++) {
      m[11 + i] = (byte) (i < symbol.length() ? symbol.charAt(i) : ' ');
    }
    return add(m);
  }

  ItchBuilder addOrder(int locate, long ref, char side, int shares, int price) {
    byte[] m = message('A', locate);
    Itch.put64(m, 11, ref);
    m[19] = (byte) side;
    Itch.put32(m, 20, shares);
    Itch.put32(m, 32, price);
    return add(m);
  }

  ItchBuilder addMpid(int locate, long ref, char side, int shares, int price, String mpid) {
    byte[] m = message('F', locate);
    Itch.put64(m, 11, ref);
    m[19] = (byte) side;
    Itch.put32(m, 20, shares);
    Itch.put32(m, 32, price);
    for (int i = 0; i < 4; i++) {
      m[36 + i] = (byte) mpid.charAt(i);
    }
    return add(m);
  }

  ItchBuilder executed(int locate, long ref, int shares) {
    byte[] m = message('E', locate);
    Itch.put64(m, 11, ref);
    Itch.put32(m, 19, shares);
    Itch.put64(m, 23, 99);
    return add(m);
  }

  ItchBuilder executedWithPrice(int locate, long ref, int shares, int price) {
    byte[] m = message('C', locate);
    Itch.put64(m, 11, ref);
    Itch.put32(m, 19, shares);
    Itch.put64(m, 23, 98);
    m[31] = 'Y';
    Itch.put32(m, 32, price);
    return add(m);
  }

  ItchBuilder cancel(int locate, long ref, int shares) {
    byte[] m = message('X', locate);
    Itch.put64(m, 11, ref);
    Itch.put32(m, 19, shares);
    return add(m);
  }

  ItchBuilder delete(int locate, long ref) {
    byte[] m = message('D', locate);
    Itch.put64(m, 11, ref);
    return add(m);
  }

  ItchBuilder replace(int locate, long ref, long newRef, int shares, int price) {
    byte[] m = message('U', locate);
    Itch.put64(m, 11, ref);
    Itch.put64(m, 19, newRef);
    Itch.put32(m, 27, shares);
    Itch.put32(m, 31, price);
    return add(m);
  }

  ItchBuilder trade(int locate, char side, int shares, int price) {
    byte[] m = message('P', locate);
    m[19] = (byte) side;
    Itch.put32(m, 20, shares);
    Itch.put32(m, 32, price);
    return add(m);
  }

  ItchBuilder system(char code) {
    byte[] m = message('S', 0);
    m[11] = (byte) code;
    return add(m);
  }

  byte[] bytes() {
    return out.toByteArray();
  }
}
