package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ItchGeneratorTest {
  static final ItchGenerator GEN = ItchGenerator.of(42, 300, 60_000);

  @Test
  void sameSeedGivesTheSameBytes() {
    assertThat(GEN.generate()).isEqualTo(ItchGenerator.of(42, 300, 60_000).generate());
  }

  @Test
  void anotherSeedGivesOtherBytes() {
    assertThat(Arrays.equals(GEN.generate(), ItchGenerator.of(43, 300, 60_000).generate())).isFalse();
  }

  @Test
  void writesLengthPrefixedFilesWithEveryMessageType() {
    ItchFile f = ItchReader.parse(GEN.generate());
    assertThat(f.framing()).isEqualTo(ItchFile.Framing.LENGTH_PREFIXED);
    assertThat(f.instruments()).isEqualTo(300);
    for (char t : Itch.TYPES.toCharArray()) {
      assertThat(f.count(t)).as("messages of type %s", t).isPositive();
    }
    long book = Itch.BOOK_TYPES.chars().mapToLong(t -> f.count((char) t)).sum();
    assertThat(book).isEqualTo(60_000);
  }

  @Test
  void mostAddsAreLaterCancelledAndSomeExecuted() {
    ItchFile f = ItchReader.parse(GEN.generate());
    long adds = f.count('A') + f.count('F') + f.count('U');
    long cancelled = f.count('D') + f.count('U');
    long executed = f.count('E') + f.count('C');
    assertThat(cancelled).isGreaterThan(adds / 2);
    assertThat(executed).isGreaterThan(adds / 20).isLessThan(adds / 2);
    assertThat(f.count('F')).isGreaterThan(f.count('A') / 20);
  }

  @Test
  void activityIsZipfSkewedAcrossInstruments() {
    ItchFile f = ItchReader.parse(GEN.generate());
    long[] perLocate = new long[301];
    for (int i = 0; i < f.count(); i++) {
      if (Itch.isBookType(f.type(i))) {
        perLocate[Itch.u16(f.messages(), f.offsets()[i] + 1)]++;
      }
    }
    long[] sorted = Arrays.stream(perLocate).sorted().toArray();
    long top = sorted[sorted.length - 1];
    long median = sorted[sorted.length / 2];
    assertThat(top).isGreaterThan(20 * Math.max(1, median));
  }

  @Test
  void timestampsIncreaseAndSizesAreHeavyTailed() {
    ItchFile f = ItchReader.parse(GEN.generate());
    long last = -1;
    long max = 0;
    long roundLots = 0;
    long adds = 0;
    for (int i = 0; i < f.count(); i++) {
      long ts = Itch.u48(f.messages(), f.offsets()[i] + 5);
      assertThat(ts).isGreaterThanOrEqualTo(last);
      last = ts;
      if (f.type(i) == 'A') {
        long shares = Itch.u32(f.messages(), f.offsets()[i] + 20);
        max = Math.max(max, shares);
        roundLots += shares % 100 == 0 ? 1 : 0;
        adds++;
      }
    }
    assertThat(max).isGreaterThanOrEqualTo(10_000);
    assertThat(roundLots).isGreaterThan(adds / 2);
  }

  @Test
  void pricesStayOnTheTickGrid() {
    ItchFile f = ItchReader.parse(GEN.generate());
    for (int i = 0; i < f.count(); i++) {
      if (f.type(i) == 'A') {
        assertThat(Itch.u32(f.messages(), f.offsets()[i] + 32) % ItchGenerator.TICK).isZero();
      }
    }
  }

  @Test
  void aSessionWrittenToAFileInBlocksHasTheBytesOfTheOneMadeInMemory(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws Exception {
    ItchGenerator g = ItchGenerator.of(7, 200, 300_000); // about 11 MB: more than one 8 MiB block
    java.nio.file.Path f = dir.resolve("s.itch");
    ItchSamples.write(f, 7, 200, 300_000, false);
    byte[] whole = g.generate();
    assertThat(whole.length).isGreaterThan(8 << 20);
    assertThat(java.nio.file.Files.readAllBytes(f)).isEqualTo(whole);
    java.nio.file.Path gz = dir.resolve("s.itch.gz");
    ItchSamples.write(gz, 7, 200, 300_000, true);
    try (var in = new java.util.zip.GZIPInputStream(java.nio.file.Files.newInputStream(gz))) {
      assertThat(in.readAllBytes()).isEqualTo(whole);
    }
    assertThat(ItchInput.scan(gz, java.util.Set.of()).count()).isEqualTo(ItchReader.parse(whole).count());
  }
}
