package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class ItchReaderTest {

  /** One message of every book type, for stock locate 1. */
  static ItchBuilder everyBookType(ItchBuilder.Prefix prefix) {
    return new ItchBuilder(prefix).system('O').directory(1, "AAPL")
        .addOrder(1, 10, 'B', 300, 1_000_000)
        .addMpid(1, 11, 'S', 200, 1_000_100, "GSCO")
        .executed(1, 10, 100)
        .executedWithPrice(1, 11, 50, 1_000_000)
        .cancel(1, 10, 100)
        .replace(1, 11, 12, 400, 1_000_200)
        .trade(1, 'B', 70, 1_000_050)
        .delete(1, 10);
  }

  @ParameterizedTest
  @ValueSource(chars = {'S', 'R', 'H', 'Y', 'L', 'V', 'W', 'K', 'J', 'h', 'A', 'F', 'E', 'C', 'X', 'D', 'U', 'P', 'Q',
      'B', 'I', 'N', 'O'})
  void readsEachMessageTypeByItsFixedLength(char type) {
    ItchBuilder b = new ItchBuilder(ItchBuilder.Prefix.LENGTH).directory(1, "MSFT");
    byte[] m = b.message(type, 1);
    if (type == 'A' || type == 'F') {
      Itch.put64(m, 11, 5);
      m[19] = 'B';
      Itch.put32(m, 20, 100);
    } else if (type == 'U') {
      Itch.put64(m, 19, 6);
      Itch.put32(m, 27, 100);
    } else if (type == 'P') {
      m[19] = 'S';
    }
    b.add(m);
    b.system('C');
    ItchFile f = ItchReader.parse(b.bytes());
    assertThat(f.count()).isEqualTo(3);
    assertThat(f.type(1)).isEqualTo(type);
    assertThat(f.offsets()[2] - f.offsets()[1]).isEqualTo(Itch.length(type));
    assertThat(f.count(type)).isEqualTo(type == 'R' ? 2 : type == 'S' ? 2 : 1);
    assertThat(Arrays.copyOfRange(f.messages(), f.offsets()[1], f.offsets()[2])).isEqualTo(m);
  }

  @Test
  void specificationLengthsOfAllTypes() {
    assertThat(Itch.TYPES.chars().map(Itch::length).toArray())
        .containsExactly(12, 39, 25, 20, 26, 35, 12, 28, 35, 21, 36, 40, 31, 36, 23, 19, 35, 44, 40, 19, 50, 20, 48);
    assertThat(Itch.length('Z')).isZero();
  }

  @Test
  void decodesBigEndianFieldsAndSixByteTimestamps() {
    ItchBuilder b = new ItchBuilder(ItchBuilder.Prefix.LENGTH).directory(513, "X");
    byte[] m = b.message('A', 513);
    Itch.put48(m, 5, 0x0102_0304_0506L);
    Itch.put64(m, 11, 0x0A0B_0C0D_0E0F_1011L);
    m[19] = 'S';
    Itch.put32(m, 20, 0x01020304);
    Itch.put32(m, 32, 123_456_789);
    ItchFile f = ItchReader.parse(b.add(m).bytes());
    byte[] got = f.messages();
    int at = f.offsets()[1];
    assertThat(Itch.u16(got, at + 1)).isEqualTo(513);
    assertThat(Itch.u48(got, at + 5)).isEqualTo(0x0102_0304_0506L);
    assertThat(Itch.u64(got, at + 11)).isEqualTo(0x0A0B_0C0D_0E0F_1011L);
    assertThat(Itch.u32(got, at + 20)).isEqualTo(0x01020304L);
    assertThat(Itch.u32(got, at + 32)).isEqualTo(123_456_789L);
    assertThat(f.instruments()).isEqualTo(513);
  }

  @ParameterizedTest
  @EnumSource(ItchBuilder.Prefix.class)
  void detectsAndReportsTheFraming(ItchBuilder.Prefix prefix) {
    ItchFile f = ItchReader.parse(everyBookType(prefix).bytes());
    assertThat(f.framing()).isEqualTo(switch (prefix) {
      case LENGTH -> ItchFile.Framing.LENGTH_PREFIXED;
      case ZERO -> ItchFile.Framing.ZERO_PREFIXED;
      case NONE -> ItchFile.Framing.UNFRAMED;
    });
    assertThat(f.count()).isEqualTo(10);
    assertThat(f.wrongPrefixes()).isZero();
    // The same messages whatever the framing.
    assertThat(f.messages()).isEqualTo(ItchReader.parse(everyBookType(ItchBuilder.Prefix.NONE).bytes()).messages());
  }

  @Test
  void wrongLengthPrefixesAreCountedAndTheTypeLengthWins() {
    ItchBuilder b = new ItchBuilder(ItchBuilder.Prefix.LENGTH).system('O').directory(1, "AAPL");
    byte[] add = b.message('A', 1);
    Itch.put64(add, 11, 1);
    add[19] = 'B';
    Itch.put32(add, 20, 10);
    b.add(add, 999);
    b.add(b.message('D', 1), 7);
    ItchFile f = ItchReader.parse(b.bytes());
    assertThat(f.framing()).isEqualTo(ItchFile.Framing.PREFIXED_MIXED);
    assertThat(f.wrongPrefixes()).isEqualTo(2);
    assertThat(f.count()).isEqualTo(4);
    assertThat(f.summary()).contains("PREFIXED_MIXED").contains("2 wrong length prefixes");
  }

  @Test
  void wrongFirstPrefixIsStillReadAsPrefixed() {
    ItchBuilder b = new ItchBuilder(ItchBuilder.Prefix.LENGTH);
    byte[] s = b.message('S', 0);
    b.add(s, 0x4242).directory(1, "AAPL");
    ItchFile f = ItchReader.parse(b.bytes());
    assertThat(f.framing()).isEqualTo(ItchFile.Framing.PREFIXED_MIXED);
    assertThat(f.count()).isEqualTo(2);
  }

  @Test
  void truncatedMessageNamesItsOffset() {
    byte[] all = everyBookType(ItchBuilder.Prefix.LENGTH).bytes();
    byte[] cut = Arrays.copyOf(all, all.length - 5); // the last message (D, 19 bytes) loses 5
    int lastStart = all.length - 19;
    assertThatThrownBy(() -> ItchReader.parse(cut)).isInstanceOf(ItchFormatException.class)
        .hasMessageContaining("byte offset " + lastStart).hasMessageContaining("truncated message 'D'")
        .hasMessageContaining("needs 19 bytes, 14 left");
  }

  @Test
  void truncatedPrefixNamesItsOffset() {
    byte[] all = everyBookType(ItchBuilder.Prefix.LENGTH).bytes();
    byte[] cut = Arrays.copyOf(all, all.length + 1);
    assertThatThrownBy(() -> ItchReader.parse(cut)).isInstanceOf(ItchFormatException.class)
        .hasMessageContaining("byte offset " + all.length).hasMessageContaining("truncated length prefix");
  }

  @Test
  void unknownTypeNamesItsOffset() {
    ItchBuilder b = new ItchBuilder(ItchBuilder.Prefix.LENGTH).system('O');
    byte[] bad = new byte[12];
    bad[0] = 'Z';
    b.add(bad, 12);
    assertThatThrownBy(() -> ItchReader.parse(b.bytes())).isInstanceOf(ItchFormatException.class)
        .hasMessage("ITCH 5.0 input malformed at byte offset 16: unknown message type 'Z'");
  }

  @Test
  void malformedFieldsAreRefusedWithTheirOffset() {
    ItchBuilder side = new ItchBuilder(ItchBuilder.Prefix.NONE).directory(1, "A").addOrder(1, 1, 'Q', 1, 1);
    assertThatThrownBy(() -> ItchReader.parse(side.bytes())).hasMessageContaining("byte offset " + (39 + 19))
        .hasMessageContaining("not 'B' or 'S'");
    ItchBuilder ref = new ItchBuilder(ItchBuilder.Prefix.NONE).directory(1, "A").addOrder(1, -1L, 'B', 1, 1);
    assertThatThrownBy(() -> ItchReader.parse(ref.bytes())).hasMessageContaining("byte offset " + (39 + 11))
        .hasMessageContaining("order reference number is 2^64-1, which the books cannot hold");
    ItchBuilder refZero = new ItchBuilder(ItchBuilder.Prefix.NONE).directory(1, "A").addOrder(1, 0, 'B', 1, 1);
    assertThat(ItchReader.parse(refZero.bytes()).count()).as("reference 0 is an order like any other").isEqualTo(2);
    ItchBuilder unlisted = new ItchBuilder(ItchBuilder.Prefix.NONE).directory(1, "A").addOrder(2, 1, 'B', 1, 1);
    assertThatThrownBy(() -> ItchReader.parse(unlisted.bytes())).hasMessageContaining("byte offset 40")
        .hasMessageContaining("stock locate 2");
    ItchBuilder zero = new ItchBuilder(ItchBuilder.Prefix.NONE).directory(1, "A").addOrder(1, 1, 'B', 0, 1);
    assertThatThrownBy(() -> ItchReader.parse(zero.bytes())).hasMessageContaining("share count is 0");
    ItchBuilder price = new ItchBuilder(ItchBuilder.Prefix.NONE).directory(1, "A").addOrder(1, 1, 'B', 5, -1);
    assertThatThrownBy(() -> ItchReader.parse(price.bytes())).hasMessageContaining("above 2^31-1");
    assertThatThrownBy(() -> ItchReader.parse(new byte[0])).hasMessageContaining("empty input");
  }

  @Test
  void nothingIsHalfLoaded() {
    // A failure late in a file raises; there is no partial result to get hold of.
    ItchBuilder b = everyBookType(ItchBuilder.Prefix.LENGTH);
    byte[] bad = new byte[3];
    bad[0] = 'A';
    b.add(bad, 36);
    assertThatThrownBy(() -> ItchReader.parse(b.bytes())).isInstanceOf(ItchFormatException.class)
        .satisfies(e -> assertThat(((ItchFormatException) e).offset()).isPositive());
  }
}
