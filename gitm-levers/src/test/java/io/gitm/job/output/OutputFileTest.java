package io.gitm.job.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.job.output.OutputFile.Format;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class OutputFileTest {
  @ParameterizedTest
  @CsvSource({
      "out.npy, NPY",
      "results/TABLE.CSV, CSV",
      "log.txt, BYTES",
      "weights, BYTES",
      "archive.npy.gz, BYTES",
  })
  void aPathAloneIsAutoAndResolvesByItsExtension(String spec, Format resolved) {
    OutputFile file = OutputFile.parse(spec);

    assertThat(file.path()).isEqualTo(Path.of(spec));
    assertThat(file.format()).isEqualTo(Format.AUTO);
    assertThat(file.resolvedFormat()).isEqualTo(resolved);
  }

  @ParameterizedTest
  @CsvSource({
      "out.bin:f32, out.bin, F32",
      "out.bin:F64, out.bin, F64",
      "data.txt:Csv, data.txt, CSV",
      "x.dat:npy, x.dat, NPY",
      "out.npy:bytes, out.npy, BYTES",
  })
  void aFormatAfterTheLastColonIsTakenInAnyCase(String spec, String path, Format format) {
    OutputFile file = OutputFile.parse(spec);

    assertThat(file.path()).isEqualTo(Path.of(path));
    assertThat(file.format()).isEqualTo(format);
    assertThat(file.resolvedFormat()).as("an explicit format wins over the extension").isEqualTo(format);
  }

  @Test
  void aColonFollowedByAnythingButAFormatIsPartOfThePath() {
    assertThat(OutputFile.parse("run:3/out.npy")).isEqualTo(new OutputFile(Path.of("run:3/out.npy"), Format.AUTO));
    assertThat(OutputFile.parse("a:npy:b")).isEqualTo(new OutputFile(Path.of("a:npy:b"), Format.AUTO));
    assertThat(OutputFile.parse("out.npy:")).isEqualTo(new OutputFile(Path.of("out.npy:"), Format.AUTO));
  }

  @Test
  void onlyTheLastColonSeparatesTheFormat() {
    assertThat(OutputFile.parse("s3:bucket:x.npy:bytes"))
        .isEqualTo(new OutputFile(Path.of("s3:bucket:x.npy"), Format.BYTES));
    assertThat(OutputFile.parse("t:12:00.csv:csv")).isEqualTo(new OutputFile(Path.of("t:12:00.csv"), Format.CSV));
  }

  @Test
  void autoIsNotAFormatName() {
    assertThat(OutputFile.parse("x:auto").path()).isEqualTo(Path.of("x:auto"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", ":npy", ":CSV", "  :f32"})
  void aSpecWithoutAPathIsRefusedInOneLine(String spec) {
    assertThatThrownBy(() -> OutputFile.parse(spec))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("\n")
        .message().satisfiesAnyOf(m -> assertThat(m).contains("is empty"), m -> assertThat(m).contains("no path"));
  }

  @Test
  void aNullSpecIsRefused() {
    assertThatThrownBy(() -> OutputFile.parse(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  @Test
  void aPathTheFileSystemRejectsIsRefusedInOneLine() {
    assertThatThrownBy(() -> OutputFile.parse("bad\0name:npy"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a valid path")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aRecordWithoutPathOrFormatIsRefused() {
    assertThatThrownBy(() -> new OutputFile(null, Format.NPY)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OutputFile(Path.of("x"), null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OutputFile(Path.of(""), Format.NPY)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  @ParameterizedTest
  @ValueSource(strings = {"out.npy", "out.bin:f32", "dir/t.txt:csv", "x:y:bytes"})
  void theSpecFormReadsBackToTheSameFile(String spec) {
    OutputFile file = OutputFile.parse(spec);
    assertThat(OutputFile.parse(file.toString())).isEqualTo(file);
  }
}
