package io.gitm.workloads.hft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.workload.ExecutionConfig;
import io.gitm.workloads.kit.PythonWriter;
import io.gitm.workload.InputFingerprint;
import io.gitm.workload.OutputDigest;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadInput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A user's ITCH 5.0 file, written by an independent writer (Python's struct and gzip, from the specification's
 * layouts, itch_gen.py), scanned and streamed: every count is the writer's own.
 */
class ItchInputTest {
  @TempDir
  Path dir;

  /** Runs itch_gen.py; returns its "key value" lines. */
  static Map<String, String> python(Path out, String... args) throws IOException, InterruptedException {
    return PythonWriter.write(ItchInputTest.class, "itch_gen.py", out, args);
  }

  private static long n(Map<String, String> m, String k) {
    return Long.parseLong(m.getOrDefault(k, "0"));
  }

  @Test
  void aGzippedFileWithRealLengthPrefixesIsCountedAsItsWriterCountedIt() throws Exception {
    Path f = dir.resolve("day.itch.gz");
    Map<String, String> want = python(f, "--framing", "length", "--gzip");
    ItchInput in = ItchInput.scan(f, Set.of());
    assertThat(in.gzip()).isTrue();
    assertThat(in.framing()).isEqualTo(ItchFile.Framing.LENGTH_PREFIXED);
    assertThat(in.sha256()).isEqualTo(want.get("sha256"));
    assertThat(in.bytes()).isEqualTo(n(want, "bytes"));
    assertThat((long) in.count()).isEqualTo(n(want, "messages"));
    assertThat((long) in.instruments()).isEqualTo(n(want, "instruments"));
    for (char t : Itch.TYPES.toCharArray()) {
      assertThat(in.countsByType()[t]).as("messages of type %s", t).isEqualTo(n(want, "type." + t));
    }
    assertThat((long) in.maxLevels()).isEqualTo(n(want, "maxLevels"));
    assertThat((long) in.maxLiveOrders()).isEqualTo(n(want, "maxLive"));
    assertThat(in.levelsWhere()).startsWith("AAPL at byte offset ");
  }

  @ParameterizedTest(name = "{0} prefixes, gzip {1}")
  @CsvSource({"length, false, LENGTH_PREFIXED", "zero, false, ZERO_PREFIXED", "none, false, UNFRAMED",
      "zero, true, ZERO_PREFIXED", "none, true, UNFRAMED"})
  void everyFramingPlainOrGzipReadsTheSameMessages(String framing, boolean gzip, ItchFile.Framing expected)
      throws Exception {
    Path f = dir.resolve("f.itch");
    Map<String, String> want = gzip ? python(f, "--framing", framing, "--gzip") : python(f, "--framing", framing);
    ItchInput in = ItchInput.scan(f, Set.of(), 0);
    assertThat(in.memory()).as("streamed").isNull();
    assertThat(in.framing()).isEqualTo(expected);
    assertThat((long) in.count()).isEqualTo(n(want, "messages"));
    assertThat((long) in.countsByType()['A']).isEqualTo(n(want, "type.A"));
    // the stream the sessions read gives the messages by their types' lengths, whatever the framing
    try (ItchSource.Cursor c = in.cursor()) {
      ByteBuffer b = ByteBuffer.allocate(in.count() * Itch.MAX_LENGTH);
      int[] offsets = new int[in.count()];
      int bytes = c.next(in.count(), b, offsets);
      long[] seen = new long[128];
      for (int j = 0; j < in.count(); j++) {
        int end = j + 1 < in.count() ? offsets[j + 1] : bytes;
        int type = b.get(offsets[j]) & 0xff;
        assertThat(end - offsets[j]).isEqualTo(Itch.length(type));
        seen[type]++;
      }
      assertThat(seen).isEqualTo(in.countsByType());
    }
    ItchInput held = ItchInput.scan(f, Set.of());
    assertThat(held.memory()).as("small enough to hold").isNotNull();
    assertThat(whole(held)).isEqualTo(whole(in));
  }

  @Test
  void symbolsKeepThoseInstrumentsRenumberedInDirectoryOrder() throws Exception {
    Path f = dir.resolve("pick.itch");
    Map<String, String> want = python(f, "--pick", "SPY,MSFT");
    ItchInput in = ItchInput.scan(f, Set.of("SPY", "MSFT"), 0);
    assertThat(whole(ItchInput.scan(f, Set.of("SPY", "MSFT")))).as("held as streamed").isEqualTo(whole(in));
    assertThat(in.symbols()).containsExactly("MSFT", "SPY");
    assertThat(in.instruments()).isEqualTo(2);
    assertThat((long) in.count()).isEqualTo(n(want, "picked.messages"));
    for (char t : Itch.TYPES.toCharArray()) {
      assertThat(in.countsByType()[t]).as("kept messages of type %s", t).isEqualTo(n(want, "picked.type." + t));
    }
    assertThat((long) in.maxLiveOrders()).isEqualTo(n(want, "picked.maxLive"));
    assertThat((long) in.maxLevels()).isEqualTo(n(want, "picked.maxLevels"));
    try (ItchSource.Cursor c = in.cursor()) {
      ByteBuffer b = ByteBuffer.allocate(in.count() * Itch.MAX_LENGTH);
      int[] offsets = new int[in.count()];
      c.next(in.count(), b, offsets);
      for (int j = 0; j < in.count(); j++) {
        int locate = Short.toUnsignedInt(b.getShort(offsets[j] + 1));
        assertThat(locate).isBetween(0, 2);
      }
    }
  }

  @Test
  void theBooksGrowToWhatTheDataNeedsAndTheSessionAgreesWithTheReference() throws Exception {
    Path f = dir.resolve("deep.itch.gz");
    Map<String, String> want = python(f, "--gzip", "--pick", "AAPL,MSFT");
    Workload w = new HftLobWorkload().withInput(new WorkloadInput(f, Map.of("symbols", "AAPL,MSFT")));
    HftInput spec = HftInput.of(new WorkloadInput(f, Map.of("symbols", "AAPL,MSFT")));
    ItchInput in = ItchInput.scan(f, Set.of("AAPL", "MSFT"), 0); // streamed by the session
    HftLobWorkload.Params sized = spec.sized(HftLobWorkload.Params.defaults().withBatchMessages(700), in);
    assertThat((long) sized.levels()).as("AAPL's bid side holds 322 prices at once").isEqualTo(n(want,
        "picked.maxLevels")).isGreaterThan(128);
    assertThat(1L << sized.logOrderSlots()).isGreaterThanOrEqualTo(2 * n(want, "picked.maxLive"));
    // the reference, from its definition, over the same kept messages: one of them an add with reference 0
    ItchFile whole = whole(in);
    LobDigest d = new LobDigest(whole.instruments());
    LobReference.run(whole, sized.batchMessages(), sized.weightSeed()).forEach(d::add);
    OutputDigest reference = d.digest();
    try (Workload.Session s = new LobSession(new EmulatedDevice(), ExecutionConfig.shipped(), sized, in)) {
      long messages = 0;
      while (s.hasNext()) {
        messages += s.step().units();
      }
      assertThat(messages).isEqualTo(n(want, "picked.messages"));
      assertThat(s.output().sha256()).as("books and features").isEqualTo(reference.sha256());
    }
    try (Workload.Session s = w.open(new EmulatedDevice(), ExecutionConfig.shipped(), dir)) {
      s.step();
    }
    InputFingerprint fp = w.input().orElseThrow();
    assertThat(fp.sha256()).isEqualTo(want.get("sha256"));
    assertThat(fp.bytes()).isEqualTo(n(want, "bytes"));
    assertThat(fp.format()).isEqualTo("ITCH 5.0, gzip, 2-byte length prefixes");
    assertThat(fp.found()).containsEntry("messages", (int) n(want, "picked.messages"))
        .containsEntry("symbols", List.of("AAPL", "MSFT"));
  }

  /** Every kept message, read through the cursor the sessions use, as one in-memory file. */
  static ItchFile whole(ItchInput in) {
    ByteBuffer b = ByteBuffer.allocate(in.count() * Itch.MAX_LENGTH);
    int[] offsets = new int[in.count()];
    int bytes;
    try (ItchSource.Cursor c = in.cursor()) {
      bytes = c.next(in.count(), b, offsets);
    }
    byte[] m = new byte[bytes];
    b.get(0, m);
    return new ItchFile(m, offsets, in.framing(), in.wrongPrefixes(), in.instruments(), in.countsByType());
  }

  @Test
  void aDeclaredBookDepthTheDataExceedsIsRefusedNamingWhereItWasReached() throws Exception {
    Path f = dir.resolve("deep.itch");
    python(f);
    HftInput spec = HftInput.of(new WorkloadInput(f, Map.of("book-depth", "128")));
    assertThatThrownBy(() -> spec.sized(HftLobWorkload.Params.defaults(), spec.scanned()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs 322 price levels a side (first reached by AAPL at byte offset")
        .hasMessageContaining("more than book-depth 128");
  }

  @Test
  void badOptionsAreRefusedBeforeAnyRead() {
    Path f = dir.resolve("none.itch");
    assertThatThrownBy(() -> HftInput.of(new WorkloadInput(f, Map.of("depth", "5"))))
        .hasMessage("hft-lob: unknown input option 'depth'; it takes symbols, book-depth");
    assertThatThrownBy(() -> HftInput.of(new WorkloadInput(f, Map.of("book-depth", "lots"))))
        .hasMessage("hft-lob: book-depth must be a whole number 10..4096, got 'lots'");
    assertThatThrownBy(() -> HftInput.of(new WorkloadInput(f, Map.of("symbols", "AAPL,,MSFT"))))
        .hasMessageContaining("'' is no stock symbol");
  }

  @Test
  void aSymbolNotInTheDirectoryIsNamed() throws Exception {
    Path f = dir.resolve("f.itch");
    python(f);
    assertThatThrownBy(() -> ItchInput.scan(f, Set.of("SPY", "NOPE")))
        .hasMessageStartingWith("hft-lob: --symbols NOPE is not in " + f + "'s stock directory (6 symbols, e.g. AAPL,");
  }

  @Test
  void filesOfTheWrongKindAreNamedAsSuch() throws Exception {
    Path zstd = dir.resolve("a.itch.zst");
    Files.write(zstd, new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, 0, 0, 0, 0});
    assertThatThrownBy(() -> ItchInput.scan(zstd, Set.of())).isInstanceOf(ItchFormatException.class)
        .hasMessageContaining("is zstd-compressed");
    Path png = dir.resolve("scan.png");
    Files.write(png, new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10});
    assertThatThrownBy(() -> ItchInput.scan(png, Set.of())).hasMessageContaining("is a PNG image, not ITCH 5.0");
    Path pngGz = dir.resolve("scan.png.gz");
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(pngGz))) {
      out.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13});
    }
    assertThatThrownBy(() -> ItchInput.scan(pngGz, Set.of()))
        .hasMessageContaining("is gzip of something else: what it holds is a PNG image");
    assertThatThrownBy(() -> ItchInput.scan(dir, Set.of())).hasMessageContaining("is a folder");
    assertThatThrownBy(() -> ItchInput.scan(dir.resolve("missing.itch"), Set.of())).hasMessageContaining(
        "does not exist");
  }

  @Test
  void aTruncatedGzipFileOrMessageIsRefusedWithItsOffset() throws Exception {
    Path f = dir.resolve("cut.itch.gz");
    python(f, "--gzip");
    byte[] all = Files.readAllBytes(f);
    Files.write(f, java.util.Arrays.copyOf(all, all.length / 2));
    assertThatThrownBy(() -> ItchInput.scan(f, Set.of())).isInstanceOf(ItchFormatException.class)
        .hasMessageContaining("the gzip stream ends early (the file is truncated)");
    Path g = dir.resolve("cut.itch");
    python(g, "--framing", "none");
    byte[] plain = Files.readAllBytes(g);
    Files.write(g, java.util.Arrays.copyOf(plain, plain.length - 3));
    assertThatThrownBy(() -> ItchInput.scan(g, Set.of())).isInstanceOf(ItchFormatException.class)
        .hasMessageMatching("ITCH 5.0 input malformed at byte offset \\d+: truncated message 'S': needs 12 bytes, 9"
            + " left \\(.*cut.itch\\)");
  }
}
