package io.gitm.job.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import io.gitm.job.output.OutputFile.Format;
import io.gitm.workload.OutputDigest;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class OutputFilesTest {
  private static final double FLOOR = 1e-8 / 1e-5;

  @TempDir Path anchor;
  @TempDir Path candidate;

  // ---- identity and tolerance ----

  @Test
  void bitIdenticalFilesGiveTheSameDigest() throws Exception {
    for (Path dir : List.of(anchor, candidate)) {
      Files.write(dir.resolve("out.npy"), npy("<f4", false, new long[] {2, 2}, f32(1.5f, -2f, 3.25f, 0f)));
      Files.writeString(dir.resolve("table.csv"), "step,loss\n1,0.5\n2,0.25\n");
      Files.writeString(dir.resolve("log.txt"), "done\n");
    }
    List<OutputFile> files = files("out.npy", "table.csv", "log.txt");

    OutputDigest a = OutputFiles.digest(files, anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files, candidate, FLOOR);

    assertThat(c).isEqualTo(a);
    assertThat(c.sha256()).isEqualTo(a.sha256()).hasSize(64);
    assertThat(c.fixedSha256()).isEqualTo(a.fixedSha256()).isNotNull();
    assertThat(c.maxRelativeDifference(a)).isZero();
    assertThat(a.floor()).isEqualTo(FLOOR);
  }

  @Test
  void aOneUlpChangeInOneFloatChangesTheSha256ButPassesAClassBTolerance() throws Exception {
    float moved = 0.1f;
    Files.write(anchor.resolve("out.npy"), npy("<f4", false, new long[] {3}, f32(1f, moved, 3f)));
    Files.write(candidate.resolve("out.npy"), npy("<f4", false, new long[] {3}, f32(1f, Math.nextUp(moved), 3f)));
    List<OutputFile> files = files("out.npy");

    OutputDigest a = OutputFiles.digest(files, anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files, candidate, FLOOR);

    assertThat(c.sha256()).as("class A sees the change").isNotEqualTo(a.sha256());
    assertThat(c.fixedSha256()).as("same shape and dtype").isEqualTo(a.fixedSha256());
    assertThat(a.maxRelativeDifference(c)).isPositive().isLessThanOrEqualTo(Math.ulp(moved) / moved);
    assertThat(a.maxRelativeDifference(c)).as("within rtol 1e-5").isLessThanOrEqualTo(1e-5);
  }

  @Test
  void aShapeChangeWithTheSameValuesChangesTheFixedPart() throws Exception {
    byte[] data = f64(1, 2, 3, 4, 5, 6);
    Files.write(anchor.resolve("out.npy"), npy("<f8", false, new long[] {2, 3}, data));
    Files.write(candidate.resolve("out.npy"), npy("<f8", false, new long[] {3, 2}, data));

    OutputDigest a = OutputFiles.digest(files("out.npy"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("out.npy"), candidate, FLOOR);

    assertThat(a.maxRelativeDifference(c)).as("the values alone cannot tell").isZero();
    assertThat(c.fixedSha256()).isNotEqualTo(a.fixedSha256());
  }

  @Test
  void aDtypeOrMemoryOrderChangeWithTheSameValuesChangesTheFixedPart() throws Exception {
    Files.write(anchor.resolve("out.npy"), npy("<f4", false, new long[] {2}, f32(1, 2)));
    Files.write(candidate.resolve("out.npy"), npy("<f8", false, new long[] {2}, f64(1, 2)));
    Files.write(anchor.resolve("c.npy"), npy("<f4", false, new long[] {1, 2}, f32(1, 2)));
    Files.write(candidate.resolve("c.npy"), npy("<f4", true, new long[] {1, 2}, f32(1, 2)));

    for (String name : List.of("out.npy", "c.npy")) {
      OutputDigest a = OutputFiles.digest(files(name), anchor, FLOOR);
      OutputDigest c = OutputFiles.digest(files(name), candidate, FLOOR);
      assertThat(a.maxRelativeDifference(c)).isZero();
      assertThat(c.fixedSha256()).as(name).isNotEqualTo(a.fixedSha256());
    }
  }

  @Test
  void aCsvHeaderOrLabelChangeFailsEvenWhenEveryNumberMatches() throws Exception {
    Files.writeString(anchor.resolve("header.csv"), "step,loss\n1,0.5\n");
    Files.writeString(candidate.resolve("header.csv"), "step,lost\n1,0.5\n");
    Files.writeString(anchor.resolve("label.csv"), "cat,0.9\ndog,0.1\n");
    Files.writeString(candidate.resolve("label.csv"), "dog,0.9\ncat,0.1\n");
    Files.writeString(anchor.resolve("rows.csv"), "1,2\n3\n");
    Files.writeString(candidate.resolve("rows.csv"), "1\n2,3\n");
    Files.writeString(anchor.resolve("where.csv"), "x,1\n");
    Files.writeString(candidate.resolve("where.csv"), "1,x\n");

    for (String name : List.of("header.csv", "label.csv", "rows.csv", "where.csv")) {
      OutputDigest a = OutputFiles.digest(files(name), anchor, FLOOR);
      OutputDigest c = OutputFiles.digest(files(name), candidate, FLOOR);
      assertThat(a.maxRelativeDifference(c)).as(name).isZero();
      assertThat(c.fixedSha256()).as(name).isNotEqualTo(a.fixedSha256());
    }
  }

  @Test
  void csvNumbersMayMoveWhileTheLayoutAndTextHold() throws Exception {
    Files.writeString(anchor.resolve("t.csv"), "name,value\nalpha,1.0\nbeta, 2.5e3\n");
    Files.writeString(candidate.resolve("t.csv"), "name,value\nalpha,1.000001\nbeta,2500.0\n");

    OutputDigest a = OutputFiles.digest(files("t.csv"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("t.csv"), candidate, FLOOR);

    assertThat(a.values()).containsExactly(1.0, 2500.0);
    assertThat(c.fixedSha256()).isEqualTo(a.fixedSha256());
    assertThat(c.sha256()).isNotEqualTo(a.sha256());
    assertThat(a.maxRelativeDifference(c)).isCloseTo(1e-6, offset(1e-9));
  }

  @Test
  void csvCellsAreReadAsRfc4180() throws Exception {
    String csv = "\"a,b\",\"1.5\"\r\n\"say \"\"hi\"\"\",-2\r\n\"two\nlines\",+.5\r\n";
    Files.writeString(anchor.resolve("t.csv"), csv);
    Files.writeString(candidate.resolve("t.csv"), csv.replace("hi", "ho"));

    OutputDigest a = OutputFiles.digest(files("t.csv"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("t.csv"), candidate, FLOOR);

    assertThat(a.values()).as("a quoted number is a number").containsExactly(1.5, -2, 0.5);
    assertThat(c.fixedSha256()).as("text inside quotes is text").isNotEqualTo(a.fixedSha256());
  }

  @Test
  void aCsvCellHoldingADelimiterIsOneCell() throws Exception {
    Files.writeString(anchor.resolve("t.csv"), "\"1,5\",2\n");
    Files.writeString(candidate.resolve("t.csv"), "1,5,2\n");

    OutputDigest a = OutputFiles.digest(files("t.csv"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("t.csv"), candidate, FLOOR);

    assertThat(a.values()).containsExactly(2);
    assertThat(c.values()).containsExactly(1, 5, 2);
  }

  @Test
  void csvNonFiniteNumbersAsNumpyWritesThemAreValuesAndJavaOnlySpellingsAreText() throws Exception {
    Files.writeString(anchor.resolve("t.csv"), "nan,inf,-inf,+inf,NaN,1f,0x10,1e5d,,1.2.3\n");

    OutputDigest d = OutputFiles.digest(files("t.csv"), anchor, FLOOR);

    assertThat(d.values()).containsExactly(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Double.POSITIVE_INFINITY, Double.NaN);
  }

  @Test
  void aByteOrderMarkDoesNotHideTheFirstNumber() throws Exception {
    Files.write(anchor.resolve("t.csv"), concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf},
        "1.5,2\n".getBytes(StandardCharsets.US_ASCII)));

    assertThat(OutputFiles.digest(files("t.csv"), anchor, FLOOR).values()).containsExactly(1.5, 2);
  }

  @Test
  void nonUtf8TextInACsvIsComparedByteForByte() throws Exception {
    Files.write(anchor.resolve("t.csv"), concat("caf".getBytes(StandardCharsets.US_ASCII), new byte[] {(byte) 0xe9},
        ",1\n".getBytes(StandardCharsets.US_ASCII)));
    Files.write(candidate.resolve("t.csv"), concat("caf".getBytes(StandardCharsets.US_ASCII),
        new byte[] {(byte) 0xe8}, ",1\n".getBytes(StandardCharsets.US_ASCII)));

    OutputDigest a = OutputFiles.digest(files("t.csv"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("t.csv"), candidate, FLOOR);

    assertThat(a.values()).containsExactly(1.0);
    assertThat(c.fixedSha256()).isNotEqualTo(a.fixedSha256());
  }

  @Test
  void aWholeNonNumericFileIsFixedAndRawFloatsAloneFixNothing() throws Exception {
    Files.writeString(anchor.resolve("log.txt"), "loss 0.5\n");
    Files.writeString(candidate.resolve("log.txt"), "loss 0.50\n");
    Files.write(anchor.resolve("x.f32"), f32(1, 2));
    Files.write(anchor.resolve("y.bin"), f64(3));

    OutputDigest a = OutputFiles.digest(files("log.txt"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("log.txt"), candidate, FLOOR);
    OutputDigest raw = OutputFiles.digest(List.of(OutputFile.parse("x.f32:f32"), OutputFile.parse("y.bin:F64")),
        anchor, FLOOR);

    assertThat(a.values()).isEmpty();
    assertThat(c.fixedSha256()).isNotEqualTo(a.fixedSha256()).isNotNull();
    assertThat(raw.values()).containsExactly(1, 2, 3);
    assertThat(raw.fixedSha256()).isNull();
  }

  @Test
  void theSha256CoversEveryFileInOrderWithItsNameAndLength() throws Exception {
    Files.writeString(anchor.resolve("a.txt"), "ab");
    Files.writeString(anchor.resolve("b.txt"), "c");
    Files.writeString(candidate.resolve("a.txt"), "a");
    Files.writeString(candidate.resolve("b.txt"), "bc");
    Files.writeString(candidate.resolve("c.txt"), "c");

    String ab = OutputFiles.digest(files("a.txt", "b.txt"), anchor, FLOOR).sha256();

    assertThat(OutputFiles.digest(files("b.txt", "a.txt"), anchor, FLOOR).sha256()).as("order").isNotEqualTo(ab);
    assertThat(OutputFiles.digest(files("a.txt", "b.txt"), candidate, FLOOR).sha256())
        .as("the same bytes split differently").isNotEqualTo(ab);
    assertThat(OutputFiles.digest(files("c.txt"), candidate, FLOOR).sha256())
        .as("the same bytes under another name")
        .isNotEqualTo(OutputFiles.digest(files("b.txt"), anchor, FLOOR).sha256());
  }

  @Test
  void relativePathsResolveAgainstTheWorkdirAndAbsoluteOnesDoNot() throws Exception {
    Files.createDirectories(anchor.resolve("sub"));
    Files.write(anchor.resolve("sub/x.f64"), f64(7));
    Files.write(candidate.resolve("y.f64"), f64(8));

    OutputDigest d = OutputFiles.digest(List.of(OutputFile.parse("sub/x.f64:f64"),
        new OutputFile(candidate.resolve("y.f64"), Format.F64)), anchor, FLOOR);

    assertThat(d.values()).containsExactly(7, 8);
  }

  // ---- .npy dtypes and byte orders, written from Java ----

  static Stream<Arguments> dtypes() {
    double[] floats = {0, 1.5, -2.25, 1024, -0.0078125};
    return Stream.of(
        Arguments.of("f2", floats, 2), Arguments.of("f4", floats, 4), Arguments.of("f8", floats, 8),
        Arguments.of("i1", new double[] {0, 1, -1, Byte.MAX_VALUE, Byte.MIN_VALUE}, 1),
        Arguments.of("i2", new double[] {0, 1, -1, Short.MAX_VALUE, Short.MIN_VALUE}, 2),
        Arguments.of("i4", new double[] {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE}, 4),
        Arguments.of("i8", new double[] {0, 1, -1, 1L << 52, -(1L << 52)}, 8),
        Arguments.of("u1", new double[] {0, 1, 255}, 1),
        Arguments.of("u2", new double[] {0, 1, 65535}, 2),
        Arguments.of("u4", new double[] {0, 1, 4294967295.0}, 4),
        Arguments.of("u8", new double[] {0, 1, 0x1p63, new BigInteger("18446744073709549568").doubleValue()}, 8),
        Arguments.of("b1", new double[] {1, 0, 1}, 1));
  }

  @ParameterizedTest
  @MethodSource("dtypes")
  void eachNpyDtypeReadsItsValuesInEveryByteOrder(String type, double[] expected, int width) throws Exception {
    for (char order : width == 1 ? new char[] {'|', '<', '>', '='} : new char[] {'<', '>', '='}) {
      ByteOrder byteOrder = order == '>' ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
      String descr = order + type;
      Files.write(anchor.resolve("a.npy"), npy(descr, false, new long[] {expected.length},
          encode(type, expected, byteOrder)));

      OutputDigest d = OutputFiles.digest(files("a.npy"), anchor, FLOOR);

      assertThat(d.values()).as(descr).containsExactly(expected);
      assertThat(d.fixedSha256()).as(descr).isNotNull();
    }
  }

  @Test
  void aBoolByteOtherThanZeroIsTrue() throws Exception {
    Files.write(anchor.resolve("b.npy"), npy("|b1", false, new long[] {3}, new byte[] {0, 2, (byte) 255}));

    assertThat(OutputFiles.digest(files("b.npy"), anchor, FLOOR).values()).containsExactly(0, 1, 1);
  }

  @Test
  void everyNpyVersionIsReadAlike() throws Exception {
    double[] values = {1.25, -3};
    List<OutputDigest> digests = new java.util.ArrayList<>();
    for (int version = 1; version <= 3; version++) {
      Files.write(anchor.resolve("v.npy"), npy("<f8", false, new long[] {2}, f64(values), version));
      digests.add(OutputFiles.digest(files("v.npy"), anchor, FLOOR));
    }

    for (OutputDigest d : digests) {
      assertThat(d.values()).containsExactly(values);
      assertThat(d.fixedSha256()).isEqualTo(digests.getFirst().fixedSha256());
    }
    assertThat(digests.getFirst().sha256()).as("the bytes differ").isNotEqualTo(digests.getLast().sha256());
  }

  @Test
  void aScalarAndAnEmptyArrayHaveOneAndNoValues() throws Exception {
    Files.write(anchor.resolve("s.npy"), npy("<f8", false, new long[] {}, f64(4.5)));
    Files.write(anchor.resolve("e.npy"), npy("<f8", false, new long[] {0, 3}, new byte[0]));

    assertThat(OutputFiles.digest(files("s.npy"), anchor, FLOOR).values()).containsExactly(4.5);
    assertThat(OutputFiles.digest(files("e.npy"), anchor, FLOOR).values()).isEmpty();
  }

  @Test
  void arraysSavedOneAfterAnotherInOneFileAreAllRead() throws Exception {
    Files.write(anchor.resolve("two.npy"), concat(npy("<f4", false, new long[] {2}, f32(1, 2)),
        npy(">i2", false, new long[] {1}, encode("i2", new double[] {-3}, ByteOrder.BIG_ENDIAN))));
    Files.write(candidate.resolve("two.npy"), concat(npy("<f4", false, new long[] {2}, f32(1, 2)),
        npy(">i4", false, new long[] {1}, encode("i4", new double[] {-3}, ByteOrder.BIG_ENDIAN))));

    OutputDigest a = OutputFiles.digest(files("two.npy"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("two.npy"), candidate, FLOOR);

    assertThat(a.values()).containsExactly(1, 2, -3);
    assertThat(c.fixedSha256()).as("the second array's dtype counts").isNotEqualTo(a.fixedSha256());
  }

  @Test
  void anUnsupportedDtypeIsComparedByteForByteNotRefused() throws Exception {
    byte[] strings = "abcdefghi".getBytes(StandardCharsets.US_ASCII);
    Files.write(anchor.resolve("s.npy"), npy("|S3", false, new long[] {3}, strings));
    strings[4] = 'X';
    Files.write(candidate.resolve("s.npy"), npy("|S3", false, new long[] {3}, strings));
    String structured = "[('x', '<f4'), ('y', '<i8', (2,))]";
    Files.write(anchor.resolve("r.npy"), npyRaw("{'descr': " + structured
        + ", 'fortran_order': False, 'shape': (1,), }", new byte[20], 1));

    OutputDigest a = OutputFiles.digest(files("s.npy"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("s.npy"), candidate, FLOOR);
    OutputDigest record = OutputFiles.digest(files("r.npy"), anchor, FLOOR);

    assertThat(a.values()).isEmpty();
    assertThat(c.fixedSha256()).isNotEqualTo(a.fixedSha256());
    assertThat(record.values()).isEmpty();
    assertThat(record.fixedSha256()).isNotNull();
  }

  // ---- fixtures written by NumPy 2.4 ----

  /*
   * The files under src/test/resources/outputs/ were written by NumPy 2.4.6:
   *
   *   import numpy as np
   *   np.save('f32_2x3.npy', np.array([[1.5, -2.25, 3.0], [0.1, 1e-3, -7.0]], dtype=np.float32))
   *   np.save('f64_fortran.npy', np.asfortranarray(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])))
   *   np.save('i2_big.npy', np.array([1, -2, 300, -32768], dtype='>i2'))
   *   np.save('f16.npy', np.array([0.5, -1.25, 65504.0, 0.0001], dtype=np.float16))
   *   np.save('bool.npy', np.array([True, False, True]))
   *   np.save('c64.npy', np.array([1 + 2j, 3 - 4j], dtype=np.complex64))
   *   with open('u2_v2.npy', 'wb') as f:
   *       np.lib.format.write_array(f, np.array([7, 65535], dtype='<u2'), version=(2, 0))
   *   with open('f8_v3.npy', 'wb') as f:
   *       np.lib.format.write_array(f, np.array([2.5, -0.5]), version=(3, 0))
   *   np.savetxt('table.csv', np.array([[1.0, 2.5, np.nan], [-3.0, np.inf, -np.inf]]), delimiter=',',
   *              header='a,b,c')
   */

  static Path fixtures() throws URISyntaxException {
    return Path.of(OutputFilesTest.class.getResource("/outputs").toURI());
  }

  @Test
  void numpyFixturesReadTheValuesNumpyWrote() throws Exception {
    Path dir = fixtures();

    assertThat(OutputFiles.digest(files("f32_2x3.npy"), dir, FLOOR).values())
        .containsExactly(1.5, -2.25, 3.0, 0.1f, 1e-3f, -7.0);
    assertThat(OutputFiles.digest(files("f64_fortran.npy"), dir, FLOOR).values())
        .as("storage order, column by column").containsExactly(1, 4, 2, 5, 3, 6);
    assertThat(OutputFiles.digest(files("i2_big.npy"), dir, FLOOR).values()).containsExactly(1, -2, 300, -32768);
    assertThat(OutputFiles.digest(files("f16.npy"), dir, FLOOR).values())
        .containsExactly(0.5, -1.25, 65504, Float.float16ToFloat(Float.floatToFloat16(0.0001f)));
    assertThat(OutputFiles.digest(files("bool.npy"), dir, FLOOR).values()).containsExactly(1, 0, 1);
    assertThat(OutputFiles.digest(files("u2_v2.npy"), dir, FLOOR).values()).containsExactly(7, 65535);
    assertThat(OutputFiles.digest(files("f8_v3.npy"), dir, FLOOR).values()).containsExactly(2.5, -0.5);
    assertThat(OutputFiles.digest(files("table.csv"), dir, FLOOR).values())
        .containsExactly(1.0, 2.5, Double.NaN, -3.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
  }

  @Test
  void theTestsNpyWriterWritesWhatNumpyWrites() throws Exception {
    Path dir = fixtures();

    assertThat(npy("<f4", false, new long[] {2, 3}, f32(1.5f, -2.25f, 3f, 0.1f, 1e-3f, -7f)))
        .isEqualTo(Files.readAllBytes(dir.resolve("f32_2x3.npy")));
    assertThat(npy("<f8", true, new long[] {2, 3}, f64(1, 4, 2, 5, 3, 6)))
        .isEqualTo(Files.readAllBytes(dir.resolve("f64_fortran.npy")));
    assertThat(npy("<u2", false, new long[] {2}, encode("u2", new double[] {7, 65535}, ByteOrder.LITTLE_ENDIAN), 2))
        .isEqualTo(Files.readAllBytes(dir.resolve("u2_v2.npy")));
  }

  @Test
  void aNumpyComplexArrayIsComparedExactly() throws Exception {
    byte[] bytes = Files.readAllBytes(fixtures().resolve("c64.npy"));
    Files.write(anchor.resolve("c.npy"), bytes);
    bytes[bytes.length - 1] ^= 1;
    Files.write(candidate.resolve("c.npy"), bytes);

    OutputDigest a = OutputFiles.digest(files("c.npy"), anchor, FLOOR);
    OutputDigest c = OutputFiles.digest(files("c.npy"), candidate, FLOOR);

    assertThat(a.values()).isEmpty();
    assertThat(c.fixedSha256()).isNotEqualTo(a.fixedSha256()).isNotNull();
  }

  // ---- unreadable files ----

  @Test
  void aMissingFileWasNotWritten() {
    assertThatThrownBy(() -> OutputFiles.digest(files("out.npy"), anchor, FLOOR))
        .isInstanceOf(OutputFiles.Unreadable.class).hasMessage("output file out.npy was not written");
  }

  @Test
  void aDirectoryIsNotAnOutputFile() throws Exception {
    Files.createDirectory(anchor.resolve("out"));
    assertThatThrownBy(() -> OutputFiles.digest(files("out"), anchor, FLOOR))
        .isInstanceOf(OutputFiles.Unreadable.class).hasMessage("output file out is not a regular file");
  }

  @Test
  void aFileWithoutTheNpyMagicIsNotANpyFile() throws Exception {
    Files.writeString(anchor.resolve("out.npy"), "1,2,3\n");
    Files.write(anchor.resolve("empty.npy"), new byte[0]);

    assertThatThrownBy(() -> OutputFiles.digest(files("out.npy"), anchor, FLOOR))
        .isInstanceOf(OutputFiles.Unreadable.class).hasMessage("output file out.npy is not a .npy file: bad magic");
    assertThatThrownBy(() -> OutputFiles.digest(files("empty.npy"), anchor, FLOOR))
        .hasMessage("output file empty.npy is not a .npy file: bad magic");
  }

  @Test
  void anUnknownNpyVersionIsRefused() throws Exception {
    byte[] file = npy("<f4", false, new long[] {1}, f32(1));
    file[6] = 4;
    Files.write(anchor.resolve("out.npy"), file);

    assertThatThrownBy(() -> OutputFiles.digest(files("out.npy"), anchor, FLOOR))
        .hasMessage("output file out.npy is in unsupported .npy version 4");
  }

  @Test
  void aTruncatedNpyFileSaysHowManyValuesItHolds() throws Exception {
    byte[] file = npy("<f4", false, new long[] {1024, 1024}, new byte[0]);
    Files.write(anchor.resolve("out.npy"), concat(file, new byte[4001]));

    assertThatThrownBy(() -> OutputFiles.digest(files("out.npy"), anchor, FLOOR))
        .isInstanceOf(OutputFiles.Unreadable.class)
        .hasMessage("output file out.npy is truncated: header says 1048576 values, file holds 1000");
  }

  @Test
  void aNpyFileCutInsideItsHeaderIsTruncated() throws Exception {
    byte[] file = npy("<f4", false, new long[] {1}, f32(1));
    Files.write(anchor.resolve("out.npy"), Arrays.copyOf(file, 30));

    assertThatThrownBy(() -> OutputFiles.digest(files("out.npy"), anchor, FLOOR))
        .hasMessageStartingWith("output file out.npy is truncated: its header says").hasMessageEndingWith("holds 20");
  }

  @Test
  void aMalformedNpyHeaderIsRefusedInOneLine() throws Exception {
    Files.write(anchor.resolve("a.npy"), npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (2,3 }",
        new byte[0], 1));
    Files.write(anchor.resolve("b.npy"), npyRaw("{'descr': '<f4', 'shape': (2,), }", new byte[0], 1));
    Files.write(anchor.resolve("c.npy"), npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
        new byte[0], 1));

    assertThatThrownBy(() -> OutputFiles.digest(files("a.npy"), anchor, FLOOR))
        .hasMessageStartingWith("output file a.npy is not a .npy file: malformed header (")
        .hasMessageNotContaining("\n");
    assertThatThrownBy(() -> OutputFiles.digest(files("b.npy"), anchor, FLOOR))
        .hasMessage("output file b.npy is not a .npy file: its header lacks 'fortran_order'");
    assertThatThrownBy(() -> OutputFiles.digest(files("c.npy"), anchor, FLOOR))
        .hasMessageContaining("shape is not a tuple of non-negative integers");
  }

  @Test
  void aSecondArrayThatIsNotAnArrayIsNamedByItsPlace() throws Exception {
    byte[] first = npy("<f4", false, new long[] {1}, f32(1));
    Files.write(anchor.resolve("out.npy"), concat(first, "junk".getBytes(StandardCharsets.US_ASCII)));

    assertThatThrownBy(() -> OutputFiles.digest(files("out.npy"), anchor, FLOOR))
        .hasMessage("output file out.npy (array 2, at byte " + first.length + ") is not a .npy file: bad magic");
  }

  @Test
  void aRawFloatFileMustHoldWholeFloats() throws Exception {
    Files.write(anchor.resolve("x.f32"), new byte[10]);
    Files.write(anchor.resolve("x.f64"), new byte[12]);

    assertThatThrownBy(() -> OutputFiles.digest(List.of(OutputFile.parse("x.f32:f32")), anchor, FLOOR))
        .isInstanceOf(OutputFiles.Unreadable.class)
        .hasMessage("output file x.f32 has 10 bytes, not a whole number of 4-byte floats");
    assertThatThrownBy(() -> OutputFiles.digest(List.of(OutputFile.parse("x.f64:f64")), anchor, FLOOR))
        .hasMessage("output file x.f64 has 12 bytes, not a whole number of 8-byte floats");
  }

  @Test
  void anUnclosedCsvQuoteIsNotACsvFile() throws Exception {
    Files.writeString(anchor.resolve("t.csv"), "a,1\n\"b,2\n");

    assertThatThrownBy(() -> OutputFiles.digest(files("t.csv"), anchor, FLOOR))
        .isInstanceOf(OutputFiles.Unreadable.class)
        .hasMessageStartingWith("output file t.csv is not a CSV file: ")
        .hasMessageNotContaining("\n");
  }

  @Test
  void moreValuesThanTheCapAreRefusedWithTheirCount() throws Exception {
    long over = OutputFiles.MAX_VALUES + 1;
    Files.write(anchor.resolve("big.npy"), npy("<f4", false, new long[] {over}, new byte[0]));
    Files.write(anchor.resolve("small.f32"), f32(1));
    String advice = " values, more than the 67108864 a tolerance comparison keeps in memory; "
        + "compare a smaller output (a slice or a reduction)";

    assertThatThrownBy(() -> OutputFiles.digest(files("big.npy"), anchor, FLOOR))
        .isInstanceOf(OutputFiles.Unreadable.class).hasMessage("outputs hold " + over + advice);
    assertThatThrownBy(() -> OutputFiles.digest(List.of(OutputFile.parse("small.f32:f32"),
        OutputFile.parse("big.npy")), anchor, FLOOR)).hasMessage("outputs hold " + (over + 1) + advice);
    assertThatThrownBy(() -> OutputFiles.digest(List.of(OutputFile.parse("big.npy"),
        OutputFile.parse("small.f32:f32")), anchor, FLOOR)).hasMessage("outputs hold at least " + over + advice);
  }

  @Test
  void badArgumentsAreRefusedWithAMessage() {
    assertThatThrownBy(() -> OutputFiles.digest(List.of(), anchor, FLOOR))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no output files");
    assertThatThrownBy(() -> OutputFiles.digest(files("x"), null, FLOOR))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("working directory");
    for (double floor : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> OutputFiles.digest(files("x"), anchor, floor))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("floor");
    }
  }

  // ---- helpers ----

  private static List<OutputFile> files(String... specs) {
    return Arrays.stream(specs).map(OutputFile::parse).toList();
  }

  /** A .npy file as numpy writes it: the header dict padded with spaces to a multiple of 64 bytes, then a newline. */
  static byte[] npy(String descr, boolean fortran, long[] shape, byte[] data, int version) {
    String dims = LongStream.of(shape).mapToObj(Long::toString).collect(Collectors.joining(", "));
    String tuple = "(" + dims + (shape.length == 1 ? ",)" : ")");
    String dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': "
        + tuple + ", }";
    return npyRaw(dict, data, version);
  }

  static byte[] npy(String descr, boolean fortran, long[] shape, byte[] data) {
    return npy(descr, fortran, shape, data, 1);
  }

  static byte[] npyRaw(String dict, byte[] data, int version) {
    int prefix = 6 + 2 + (version == 1 ? 2 : 4);
    int pad = (64 - (prefix + dict.length() + 1) % 64) % 64;
    byte[] header = (dict + " ".repeat(pad) + "\n").getBytes(StandardCharsets.ISO_8859_1);
    ByteBuffer b = ByteBuffer.allocate(prefix + header.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) version).put((byte) 0);
    if (version == 1) {
      b.putShort((short) header.length);
    } else {
      b.putInt(header.length);
    }
    return b.put(header).put(data).array();
  }

  static byte[] f32(float... values) {
    ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      b.putFloat(v);
    }
    return b.array();
  }

  static byte[] f64(double... values) {
    ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (double v : values) {
      b.putDouble(v);
    }
    return b.array();
  }

  /** Values in a numpy type's encoding ({@code f2 f4 f8 iN uN b1}), as the test's independent writer. */
  static byte[] encode(String type, double[] values, ByteOrder order) {
    int width = type.charAt(1) - '0';
    ByteBuffer b = ByteBuffer.allocate(width * values.length).order(order);
    for (double v : values) {
      switch (type) {
        case "f2" -> b.putShort(Float.floatToFloat16((float) v));
        case "f4" -> b.putFloat((float) v);
        case "f8" -> b.putDouble(v);
        case "i1", "u1", "b1" -> b.put((byte) (long) v);
        case "i2", "u2" -> b.putShort((short) (long) v);
        case "i4", "u4" -> b.putInt((int) (long) v);
        case "i8" -> b.putLong((long) v);
        case "u8" -> b.putLong(new java.math.BigDecimal(v).toBigInteger().longValue());
        default -> throw new IllegalArgumentException(type);
      }
    }
    return b.array();
  }

  private static byte[] concat(byte[]... parts) throws IOException {
    var out = new java.io.ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.write(p);
    }
    return out.toByteArray();
  }
}
