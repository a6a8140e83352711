package io.gitm.workloads.af2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** FASTA and A3M read as AlphaFold reads them; every malformed file is refused with the line it goes wrong on. */
class MsaReaderTest {
  @TempDir
  Path dir;

  @Test
  void a3mRemovesLowerCaseInsertionsAndCountsThemBeforeTheNextColumn() {
    Msa msa = MsaReader.a3m(">q\nACDEF\n>h1\nAabC-DxyzF\n", "t.a3m");
    assertThat(msa.rows()).containsExactly("ACDEF", "AC-DF");
    assertThat(msa.deletions().get(0)).containsExactly(0, 0, 0, 0, 0);
    assertThat(msa.deletions().get(1)).containsExactly(0, 2, 0, 0, 3);
    assertThat(msa.descriptions()).containsExactly("q", "h1");
  }

  @Test
  void a3mDropsInsertionsAfterTheLastColumnAndDotsAsNothing() {
    Msa msa = MsaReader.a3m(">q\nACD\n>h\nA..C.Dkk\n", "t.a3m");
    assertThat(msa.rows().get(1)).isEqualTo("ACD");
    assertThat(msa.deletions().get(1)).containsExactly(0, 0, 0);
  }

  @Test
  void sequencesContinueAcrossLinesAndBlankLinesAndCarriageReturnsAreSkipped() {
    Msa msa = MsaReader.a3m(">q desc with spaces\r\nAC\r\n\r\n  DE  \r\n>h\r\nA-\r\nDE\r\n", "t.a3m");
    assertThat(msa.rows()).containsExactly("ACDE", "A-DE");
    assertThat(msa.descriptions().getFirst()).isEqualTo("q desc with spaces");
  }

  @Test
  void featuresDropRepeatedRowsKeepingTheFirstsDeletionsAndStopAtMaxRows() {
    Msa msa = MsaReader.a3m(">q\nACD\n>a\nAkC-\n>b\nACD\n>c\nA-D\n>d\nAmmC-\n>e\n--D\n", "t.a3m");
    Features f = msa.features(3);
    assertThat(f.nSeq()).isEqualTo(3);
    // kept: q, a, c (b repeats q, d repeats a's aligned row with other deletions, e is past maxRows)
    int gap = Residues.GAP;
    int a = Residues.ORDER.indexOf('A');
    int c = Residues.ORDER.indexOf('C');
    int d = Residues.ORDER.indexOf('D');
    assertThat(f.msa()).containsExactly(a, c, d, a, c, gap, a, gap, d);
    assertThat(f.deletions()).containsExactly(0, 0, 0, 0, 1, 0, 0, 0, 0);
    assertThat(msa.features(10).nSeq()).as("all distinct rows").isEqualTo(4);
  }

  @Test
  void ambiguousLettersAreReadAsAlphaFoldReadsHhblitsOutput() {
    Msa msa = MsaReader.a3m(">q\nBZUXJOW\n>h\nBZUXJO-\n", "t.a3m");
    Features f = msa.features(2);
    int x = Residues.UNKNOWN;
    int[] row = {Residues.ORDER.indexOf('D'), Residues.ORDER.indexOf('E'), Residues.ORDER.indexOf('C'), x, x, x};
    assertThat(Arrays.copyOf(f.msa(), 6)).containsExactly(row);
    assertThat(f.msa()[7 + 6]).isEqualTo(Residues.GAP);
    // the query's residue types know only the 20 standard amino acids and X
    assertThat(f.aatype()).containsExactly(x, x, x, x, x, x, Residues.ORDER.indexOf('W'));
  }

  @Test
  void fastaReadsOneQueryAsAnAlignmentOfDepthOne() {
    Msa msa = MsaReader.fasta(">sp|P1|TEST a protein\nmkv\nLLA*\n", "q.fasta");
    assertThat(msa.rows()).containsExactly("MKVLLA");
    assertThat(msa.depth()).isEqualTo(1);
    assertThat(msa.features(512).deletions()).containsOnly(0);
  }

  @Test
  void readPicksTheFormatByExtension() throws Exception {
    Path a3m = dir.resolve("x.a3m");
    Files.writeString(a3m, ">q\nAC\n>h\nAkC\n");
    Path fasta = dir.resolve("x.fasta");
    Files.writeString(fasta, ">q\nAc\n");
    assertThat(MsaReader.read(a3m).deletions().get(1)).containsExactly(0, 1);
    assertThat(MsaReader.read(fasta).rows()).containsExactly("AC");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "text before the first header | ACD\\n>q\\nACD\\n | 1 | before the first '>'",
      "header without sequence | >q\\nACD\\n>empty\\n\\n>h\\nACD\\n | 3 | has no sequence",
      "bad character | >q\\nACD\\n>h\\nA1D\\n | 4 | column 2: unexpected character '1'",
      "star in an alignment | >q\\nACD*\\n | 2 | unexpected character '*'",
      "row of the wrong length | >q\\nACDE\\n>ok\\nAC-E\\n>short\\nACkD\\n | 5 | 3 aligned columns",
      "query with an insertion | >q\\nAcD\\n | 1 | the query",
      "no record at all | \\n\\n | 2 | no '>' header",
      "tab inside a sequence | >q\\nAC\\tD\\n | 2 | column 3: unexpected character U+0009",
      "counted across CRLF | >q\\r\\nACD\\r\\n>h\\r\\nA#D\\r\\n | 4 | unexpected character '#'"})
  void malformedA3mIsRefusedNamingItsLine(String name, String text, int line, String what) {
    String content = text.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t");
    assertThatThrownBy(() -> MsaReader.a3m(content, "bad.a3m"))
        .isInstanceOfSatisfying(MsaFormatException.class, e -> {
          assertThat(e.line()).isEqualTo(line);
          assertThat(e.source()).isEqualTo("bad.a3m");
        })
        .hasMessageStartingWith("bad.a3m line " + line + ": ")
        .hasMessageContaining(what);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "two sequences | >a\\nMKV\\n>b\\nMKV\\n | 3 | a second sequence",
      "gap in a query | >a\\nMK-V\\n | 2 | column 3: unexpected character '-'",
      "star inside | >a\\nMK*V\\n | 2 | '*' ends a sequence",
      "star then more lines | >a\\nMK*\\nVL\\n | 2 | '*' ends a sequence",
      "only a star | >a\\n*\\n | 1 | no residues"})
  void malformedFastaIsRefusedNamingItsLine(String name, String text, int line, String what) {
    String content = text.replace("\\n", "\n");
    assertThatThrownBy(() -> MsaReader.fasta(content, "bad.fasta"))
        .isInstanceOfSatisfying(MsaFormatException.class, e -> assertThat(e.line()).isEqualTo(line))
        .hasMessageStartingWith("bad.fasta line " + line + ": ")
        .hasMessageContaining(what);
  }

  @Test
  void aFileThatIsNotUtf8IsRefusedAtItsFirstLine() throws Exception {
    Path bad = dir.resolve("bin.a3m");
    Files.write(bad, new byte[] {'>', 'q', '\n', (byte) 0xff, (byte) 0xfe, '\n'});
    assertThatThrownBy(() -> MsaReader.read(bad)).isInstanceOf(MsaFormatException.class)
        .hasMessageContaining("not UTF-8");
  }

  @Test
  void generatedFamilyIsDeterministicAndShapedAsAskedWithInsertionsDeletionsAndFragments() {
    byte[] one = new MsaGenerator(3, 120, 40).generate();
    assertThat(new MsaGenerator(3, 120, 40).generate()).isEqualTo(one);
    assertThat(new MsaGenerator(4, 120, 40).generate()).isNotEqualTo(one);
    Msa msa = MsaReader.a3m(new String(one, StandardCharsets.US_ASCII), "gen.a3m");
    assertThat(msa.length()).isEqualTo(120);
    assertThat(msa.depth()).isEqualTo(40);
    long insertions = msa.deletions().stream().flatMapToInt(Arrays::stream).filter(x -> x > 0).count();
    long gaps = msa.rows().stream().skip(1).flatMapToInt(String::chars).filter(ch -> ch == '-').count();
    long leadingGapRows = msa.rows().stream().skip(1).filter(r -> r.startsWith("---")).count();
    assertThat(insertions).isPositive();
    assertThat(gaps).isPositive();
    assertThat(leadingGapRows).as("fragments").isPositive();
    assertThat(msa.query()).doesNotContain("-");
  }

  @Test
  void datasetIsPinnedOnFirstUseAndRefusedOnceChanged() throws Exception {
    Msa first = Af2Dataset.load(dir, "fam.a3m", () -> new MsaGenerator(1, 30, 5).generate());
    assertThat(Files.readString(dir.resolve("fam.a3m.sha256"))).startsWith(Af2Dataset.sha256(Files.readAllBytes(
        dir.resolve("fam.a3m"))));
    assertThat(Af2Dataset.load(dir, "fam.a3m", null).rows()).isEqualTo(first.rows());
    Files.writeString(dir.resolve("fam.a3m"), ">q\nACD\n");
    assertThatThrownBy(() -> Af2Dataset.load(dir, "fam.a3m", null)).hasMessageContaining("changed");
    Files.writeString(dir.resolve("own.fasta"), ">q\nACD\n");
    assertThatThrownBy(() -> Af2Dataset.load(dir, "own.fasta", null)).hasMessageContaining("not pinned");
    assertThatThrownBy(() -> Af2Dataset.load(dir, "../x.a3m", null)).hasMessageContaining("plain file name");
  }
}
