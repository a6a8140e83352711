package io.gitm.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.HardwareSpec;
import io.gitm.trace.ClockDomain;
import io.gitm.trace.CopyKind;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.MemoryKind;
import io.gitm.trace.Precision;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The ceilings a real trace is judged against come from the device it names. */
class CeilingsTest {
  private static TraceMeta real(String device) {
    return new TraceMeta("kineto", ClockDomain.UNIX_EPOCH, List.of(new TraceDevice(0, device, "", DeviceKind.REAL)),
        Map.of());
  }

  /** Ten device-to-device copies of 64 MiB, each at {@code bytesPerSecond} (its bytes counted once). */
  private static List<TraceRecord> deviceCopies(double bytesPerSecond) {
    long bytes = 64L << 20;
    long ns = Math.round(bytes / bytesPerSecond * 1e9);
    List<TraceRecord> t = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long at = i * 1_000_000L;
      t.add(new CopyRecord(CopyKind.DTOD, bytes, MemoryKind.DEVICE, MemoryKind.DEVICE, 0, 7, i + 1, at, at + ns));
    }
    return t;
  }

  private static List<String> floors(String device, double bytesPerSecond) {
    TraceMeta meta = real(device);
    Analysis.Result a = Analysis.analyze(meta, deviceCopies(bytesPerSecond), Ceilings.forTrace(meta, null).spec());
    return a.diagnostics().stream().filter(d -> d.contains("faster than its lower bound")).toList();
  }

  @Test
  void anA100DeviceToDeviceCopyAt932GigabytesPerSecondIsNoViolation() {
    // 932 GB/s each way through DRAM is 1.864 TB/s of the A100 80GB's 2.039 TB/s
    assertThat(floors("NVIDIA A100-SXM4-80GB", 932e9)).isEmpty();
  }

  @Test
  void aDeviceCopyFasterThanTheDatasheetAllowsIsStillNamed() {
    // 1.1 TB/s each way is 2.2 TB/s through DRAM: more than the A100 80GB's 2.039 TB/s peak
    assertThat(floors("NVIDIA A100-SXM4-80GB", 1.1e12)).singleElement().asString()
        .startsWith("'copy DTOD' ran faster than its lower bound (copy model at the calibrated link rate) in 10 of 10"
            + " executions").endsWith("the copy rate of the ceilings (A100 SXM4 80GB) or the timestamps are wrong");
    // on an A100 40GB (1.555 TB/s), 932 GB/s each way is beyond the peak
    assertThat(floors("NVIDIA A100-SXM4-40GB", 932e9)).hasSize(1);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "Tesla V100-SXM2-16GB, V100 SXM2 16GB, 900e9, 16e9",
      "Tesla V100-SXM2-32GB, V100 SXM2 32GB, 900e9, 16e9",
      "Tesla V100-PCIE-16GB, V100 PCIe 16GB, 900e9, 16e9",
      "Tesla V100-PCIE-32GB, V100 PCIe 32GB, 900e9, 16e9",
      "NVIDIA A100-SXM4-40GB, A100 SXM4 40GB, 1555e9, 32e9",
      "NVIDIA A100-SXM4-80GB, A100 SXM4 80GB, 2039e9, 32e9",
      "NVIDIA A100-PCIE-40GB, A100 PCIe 40GB, 1555e9, 32e9",
      "NVIDIA A100 80GB PCIe, A100 PCIe 80GB, 1935e9, 32e9",
      "NVIDIA H100 80GB HBM3, H100 SXM, 3350e9, 64e9",
      "NVIDIA H100 PCIe, H100 PCIe, 2000e9, 64e9",
      "NVIDIA L4, L4, 300e9, 32e9",
      "NVIDIA A10, A10, 600e9, 32e9"})
  void eachGpuModelOfTheTableIsFoundByTheNameItsDriverReports(String device, String model, double dram,
      double link) {
    Ceilings.Choice c = Ceilings.forTrace(real(device), null);
    HardwareSpec hw = c.spec();
    assertThat(hw.deviceName()).isEqualTo(model);
    assertThat(hw.memoryBandwidth()).isEqualTo(dram);
    assertThat(hw.hostToDevicePinned()).isEqualTo(link);
    assertThat(hw.deviceToHostPinned()).isEqualTo(link);
    assertThat(c.note()).contains("judged against the " + model + " datasheet's ceilings (NVIDIA ");
    assertThat(hw.source()).startsWith("datasheet " + model + ": NVIDIA ");
  }

  @Test
  void theDatasheetFlopRatesAreTheDenseOnes() {
    HardwareSpec a100 = Ceilings.forTrace(real("NVIDIA A100-SXM4-80GB"), null).spec();
    assertThat(a100.flopsFor(Precision.BF16)).isEqualTo(312e12);
    assertThat(a100.flopsFor(Precision.TF32)).isEqualTo(156e12);
    assertThat(a100.flopsFor(Precision.FP32)).isEqualTo(19.5e12);
    assertThat(a100.flopsFor(Precision.FP64)).isEqualTo(9.7e12);
    HardwareSpec h100 = Ceilings.forTrace(real("NVIDIA H100 80GB HBM3"), null).spec();
    assertThat(h100.flopsFor(Precision.BF16)).isEqualTo(989.5e12);
  }

  @Test
  void anH200IsJudgedAgainstThePresetMeasuredOnTheLentH200() {
    Ceilings.Choice c = Ceilings.forTrace(real("NVIDIA H200"), null);
    assertThat(c.spec().memoryBandwidth()).isEqualTo(4.1486045713511226E12);
    assertThat(c.note()).contains("judged against the h200 preset (preset h200: gitm calibrate on the lent H200");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"NVIDIA B200", "NVIDIA A10G", "NVIDIA H100 NVL", "NVIDIA H200 NVL", "Tesla V100S-PCIE-32GB"})
  void anUnknownModelIsJudgedAgainstAStatedGenericBound(String device) {
    Ceilings.Choice c = Ceilings.forTrace(real(device), null);
    assertThat(c.note()).contains("'" + device + "' is not in the table of GPU models: judged against a generic"
        + " bound, the highest ceilings of the table (the H200 SXM datasheet's: ");
    assertThat(c.spec().memoryBandwidth()).isEqualTo(4800e9);
    assertThat(c.spec().hostToDevicePinned()).isEqualTo(64e9);
    for (GpuModels.GpuModel m : GpuModels.TABLE) {
      assertThat(c.spec().memoryBandwidth()).isGreaterThanOrEqualTo(m.dramBytesPerS());
      assertThat(c.spec().hostToDevicePinned()).isGreaterThanOrEqualTo(m.linkBytesPerS());
      m.flops().forEach((p, v) -> assertThat(c.spec().flopsFor(p)).as(m.name() + " " + p).isGreaterThanOrEqualTo(v));
    }
  }

  @Test
  void aTraceNamingNoDeviceSaysSo() {
    Ceilings.Choice c = Ceilings.forTrace(new TraceMeta("kineto", ClockDomain.UNIX_EPOCH, List.of(), Map.of()), null);
    assertThat(c.note()).contains("the trace names no device model: judged against a generic bound");
  }
}
