package io.gitm.tracer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import io.gitm.trace.TrafficRecord;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ncu --csv} files: {@code ncu-constructed.csv} is written by hand in the layout ncu prints (preamble lines,
 * the details page's columns, thousands separators, scaled units, a metric gitm does not read).
 */
class NcuTrafficTest {
  @TempDir
  Path dir;

  static Path resource(String name) throws URISyntaxException {
    return Path.of(NcuTrafficTest.class.getResource("/tracer/" + name).toURI());
  }

  @Test
  void readsEachProfiledExecutionInBytesWhateverTheUnit() throws Exception {
    List<NcuTraffic.Profiled> p = NcuTraffic.read(resource("ncu-constructed.csv"));
    assertThat(p).hasSize(3);
    assertThat(p.get(0).name()).isEqualTo("lob_book");
    assertThat(p.get(0).grid()).isEqualTo(new Dim3(64, 1, 1));
    assertThat(p.get(0).block()).isEqualTo(new Dim3(256, 1, 1));
    assertThat(p.get(0).bytesRead()).isEqualTo(1_048_576);
    assertThat(p.get(0).bytesWritten()).isEqualTo(512_000);
    assertThat(p.get(0).durationNs()).isEqualTo(12_500);
    assertThat(p.get(2).bytesRead()).isEqualTo(2_000_000);
    assertThat(p.get(2).durationNs()).isNaN();
  }

  @Test
  void attachesTheMedianOfAShapesExecutionsToEveryExecutionOfThatShape() throws Exception {
    List<TraceRecord> trace = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      trace.add(kernel("lob_book", i + 1, new Dim3(64, 1, 1), i * 100_000L));
    }
    trace.add(kernel("lob_book", 5, new Dim3(128, 1, 1), 500_000L));
    trace.add(kernel("lob_decode", 6, new Dim3(8, 1, 1), 600_000L));
    NcuTraffic.Attached a = NcuTraffic.attach(trace, NcuTraffic.read(resource("ncu-constructed.csv")));
    assertThat(a.records()).hasSize(5).allSatisfy(t -> assertThat(t.source()).isEqualTo("ncu"));
    TrafficRecord first = a.records().get(0);
    assertThat(first.correlationId()).isEqualTo(1);
    assertThat(first.bytesRead()).as("median of 1 MiB and 3 MiB").isEqualTo(2_097_152);
    assertThat(first.bytesWritten()).isEqualTo(512_000);
    assertThat(a.notes().get(0)).contains("3 profiled executions of 2 kernels")
        .contains("traffic attached to 5 of the trace's 6 kernels (4 by name, grid and block; 1 by name alone)");
    assertThat(a.notes()).anySatisfy(n -> assertThat(n).isEqualTo(
        "ncu: not profiled, so not judged for traffic: lob_decode"));
    assertThat(a.notes()).anySatisfy(n -> assertThat(n).isEqualTo("ncu: profiled but not in the trace: lob_features"));
  }

  @Test
  void aFileThatIsNotNcuCsvIsRefusedWithItsLine() throws Exception {
    Path none = Files.writeString(dir.resolve("none.csv"), "==PROF== nothing profiled\n");
    assertThatThrownBy(() -> NcuTraffic.read(none)).isInstanceOf(NcuFormatException.class)
        .hasMessageContaining("no ncu --csv header");
    String header = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
    Path unit = Files.writeString(dir.resolve("unit.csv"), header
        + "\"0\",\"k\",\"dram__bytes_read.sum\",\"furlong\",\"1\"\n");
    assertThatThrownBy(() -> NcuTraffic.read(unit)).isInstanceOf(NcuFormatException.class)
        .hasMessageEndingWith("unit.csv:2: unknown unit 'furlong' for a byte count");
    Path value = Files.writeString(dir.resolve("value.csv"), header
        + "\"0\",\"k\",\"dram__bytes_read.sum\",\"byte\",\"n/a\"\n");
    assertThatThrownBy(() -> NcuTraffic.read(value)).hasMessageEndingWith("value.csv:2: value 'n/a' is not a number");
    Path fields = Files.writeString(dir.resolve("fields.csv"), header + "\"0\",\"k\",\"dram__bytes_read.sum\"\n");
    assertThatThrownBy(() -> NcuTraffic.read(fields)).hasMessageEndingWith("fields.csv:2: 3 fields, the header has 5");
    Path noBytes = Files.writeString(dir.resolve("nobytes.csv"), header
        + "\"0\",\"k\",\"dram__bytes_read.sum\",\"byte\",\"10\"\n");
    assertThatThrownBy(() -> NcuTraffic.read(noBytes)).hasMessageContaining("no kernel with both");
  }

  private static KernelRecord kernel(String name, long corr, Dim3 grid, long start) {
    return new KernelRecord(name, 0, 7, corr, start, start + 20_000L, grid, new Dim3(256, 1, 1), 32, 0, 0);
  }
}
