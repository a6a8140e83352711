package io.gitm.workloads.hft;

/**
 * Nasdaq TotalView-ITCH 5.0 message types and their fixed lengths (type byte included). Every field is big-endian;
 * every message starts with type (1), stock locate (2), tracking number (2) and a 6-byte timestamp (ns since
 * midnight), so bodies start at byte 11.
 */
final class Itch {
  private Itch() {
  }

  /** Fixed length of each message type, indexed by the type byte; 0 for bytes that are no ITCH 5.0 type. */
  private static final int[] LENGTH = new int[256];

  static {
    LENGTH['S'] = 12; // system event
    LENGTH['R'] = 39; // stock directory
    LENGTH['H'] = 25; // stock trading action
    LENGTH['Y'] = 20; // Reg SHO restriction
    LENGTH['L'] = 26; // market participant position
    LENGTH['V'] = 35; // MWCB decline level
    LENGTH['W'] = 12; // MWCB status
    LENGTH['K'] = 28; // IPO quoting period update
    LENGTH['J'] = 35; // LULD auction collar
    LENGTH['h'] = 21; // operational halt
    LENGTH['A'] = 36; // add order, no MPID
    LENGTH['F'] = 40; // add order with MPID attribution
    LENGTH['E'] = 31; // order executed
    LENGTH['C'] = 36; // order executed with price
    LENGTH['X'] = 23; // order cancel
    LENGTH['D'] = 19; // order delete
    LENGTH['U'] = 35; // order replace
    LENGTH['P'] = 44; // trade (non-cross)
    LENGTH['Q'] = 40; // cross trade
    LENGTH['B'] = 19; // broken trade
    LENGTH['I'] = 50; // net order imbalance indicator
    LENGTH['N'] = 20; // retail price improvement indicator
    LENGTH['O'] = 48; // direct listing with capital raise price discovery
  }

  /** The longest message (NOII). */
  static final int MAX_LENGTH = 50;

  /** All ITCH 5.0 type bytes, in the specification's order. */
  static final String TYPES = "SRHYLVWKJhAFECXDUPQBINO";

  /** Types that change a book or its trade volume, and so carry an instrument the workload routes by. */
  static final String BOOK_TYPES = "AFECXDUP";

  /** The fixed length of type {@code b}, or 0 when {@code b} is no ITCH 5.0 type. */
  static int length(int b) {
    return LENGTH[b & 0xff];
  }

  static boolean isBookType(int b) {
    return BOOK_TYPES.indexOf((char) (b & 0xff)) >= 0 && (b & 0xff) < 128;
  }

  static String describe(int b) {
    int v = b & 0xff;
    return v >= 0x20 && v < 0x7f ? "'" + (char) v + "'" : String.format("0x%02x", v);
  }

  static int u16(byte[] a, int at) {
    return ((a[at] & 0xff) << 8) | (a[at + 1] & 0xff);
  }

  static long u32(byte[] a, int at) {
    return ((long) (a[at] & 0xff) << 24) | ((a[at + 1] & 0xff) << 16) | ((a[at + 2] & 0xff) << 8) | (a[at + 3] & 0xff);
  }

  static long u48(byte[] a, int at) {
    long v = 0;
    for (int i = 0; i < 6; i++) {
      v = (v << 8) | (a[at + i] & 0xff);
    }
    return v;
  }

  static long u64(byte[] a, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (a[at + i] & 0xff);
    }
    return v;
  }

  static void put16(byte[] a, int at, int v) {
    a[at] = (byte) (v >>> 8);
    a[at + 1] = (byte) v;
  }

  static void put32(byte[] a, int at, long v) {
    for (int i = 3; i >= 0; i--) {
      a[at + i] = (byte) v;
      v >>>= 8;
    }
  }

  static void put48(byte[] a, int at, long v) {
    for (int i = 5; i >= 0; i--) {
      a[at + i] = (byte) v;
      v >>>= 8;
    }
  }

  static void put64(byte[] a, int at, long v) {
    for (int i = 7; i >= 0; i--) {
      a[at + i] = (byte) v;
      v >>>= 8;
    }
  }
}
