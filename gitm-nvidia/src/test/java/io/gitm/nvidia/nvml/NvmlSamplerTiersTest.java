package io.gitm.nvidia.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Ticker;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sampler's tiers against the fake libnvidia-ml (src/test/c/fakenvml.c), which counts the calls it gets: how
 * many NVML calls N samples make, that slow fields are carried forward and re-read after their interval on the
 * sampler's ticker, and that unsupported calls and field ids are reported once and not made again.
 */
class NvmlSamplerTiersTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;

  private FakeNvml fake;
  private long now;
  private final Ticker ticker = () -> now;

  @BeforeEach
  void fake() throws Exception {
    fake = FakeNvml.load();
    fake.reset();
    tick(5 * S);
  }

  /** Sets the sampler's ticker, and the fake's field-value timestamps to the same time. */
  private void tick(long nanos) {
    now = nanos;
    fake.setTimestamp(nanos / 1000);
  }

  private NvmlSampler open(NvmlSampler.Intervals intervals) {
    return NvmlSampler.of(fake.functions, 0, fake.device(), ticker, intervals);
  }

  /** Samples every {@code stepNs} after the open, {@code n} of them. */
  private List<StateSample> sampleEvery(NvmlSampler s, long stepNs, int n) {
    List<StateSample> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      tick(now + stepNs);
      out.add(s.sample());
    }
    return out;
  }

  @Test
  void nSamplesCallEachFastFunctionOncePerSampleTheCountersOncePerSecondAndEachSlowOneOncePerTenSeconds() {
    NvmlSampler s = open(NvmlSampler.Intervals.DEFAULT);
    sampleEvery(s, 100 * MS, 250);  // 25 s after the open: slow reads at the open, at +10 s and at +20 s
    int samples = 251;

    assertThat(fake.calls("nvmlDeviceGetUtilizationRates")).isEqualTo(samples);
    assertThat(fake.calls("nvmlDeviceGetMemoryInfo")).isEqualTo(samples);
    assertThat(fake.calls("nvmlDeviceGetPowerUsage")).isEqualTo(samples);
    assertThat(fake.calls("nvmlDeviceGetClockInfo")).isEqualTo(3L * samples);
    assertThat(fake.calls("nvmlDeviceGetTemperature")).isEqualTo(samples);
    assertThat(fake.calls("nvmlDeviceGetCurrentClocksEventReasons")).isEqualTo(samples);
    assertThat(fake.calls("nvmlDeviceGetFieldValues")).as("PCIe counters, one batched call at most every second")
        .isEqualTo(26);
    assertThat(fake.calls("nvmlDeviceGetEnforcedPowerLimit")).isEqualTo(3);
    assertThat(fake.calls("nvmlDeviceGetTotalEccErrors")).as("4 counters, 3 reads").isEqualTo(12);
    assertThat(fake.calls("nvmlDeviceGetRemappedRows")).isEqualTo(3);
    assertThat(fake.calls("nvmlDeviceGetComputeRunningProcesses_v3"))
        .as("the other processes on the counters' cadence: count, then fill").isEqualTo(2 * 26);
    assertThat(fake.calls("nvmlDeviceGetName")).isZero();
    assertThat(fake.calls("nvmlDeviceGetUUID")).isZero();
    assertThat(s.errors()).isZero();
  }

  @Test
  void slowFieldsAreCarriedForwardUntilTheirIntervalPassesThenReadAgain() {
    NvmlSampler s = open(NvmlSampler.Intervals.DEFAULT);
    long opened = now;
    fake.setSlowOffset(5);

    tick(opened + 10 * S - 1);
    StateSample carried = s.sample();
    tick(opened + 10 * S);
    StateSample refreshed = s.sample();
    fake.setSlowOffset(7);
    tick(opened + 19 * S);
    StateSample carriedAgain = s.sample();

    assertThat(carried.get(StateField.ECC_VOLATILE_CORRECTED)).isEqualTo(0);
    assertThat(carried.get(StateField.ECC_AGGREGATE_UNCORRECTED)).isEqualTo(11);
    assertThat(carried.get(StateField.POWER_LIMIT)).isEqualTo(700);
    assertThat(carried.get(StateField.REMAPPED_ROWS)).isEqualTo(3);
    assertThat(refreshed.get(StateField.ECC_VOLATILE_CORRECTED)).isEqualTo(5);
    assertThat(refreshed.get(StateField.ECC_AGGREGATE_UNCORRECTED)).isEqualTo(16);
    assertThat(refreshed.get(StateField.POWER_LIMIT)).isEqualTo(705);
    assertThat(refreshed.get(StateField.REMAPPED_ROWS)).isEqualTo(8);
    assertThat(carriedAgain.get(StateField.ECC_VOLATILE_CORRECTED)).isEqualTo(5);
    assertThat(carriedAgain.get(StateField.POWER_LIMIT)).isEqualTo(705);
    assertThat(fake.calls("nvmlDeviceGetEnforcedPowerLimit")).isEqualTo(2);
  }

  @Test
  void everySampleHoldsEverySupportedFieldOnceTheCountersHaveBeenReadTwice() {
    long opened = now;
    NvmlSampler s = open(NvmlSampler.Intervals.DEFAULT);
    List<StateSample> xs = sampleEvery(s, 700 * MS, 30);

    for (StateSample x : xs) {
      boolean rateKnown = x.timeNs() - opened >= 1 * S;  // a throughput needs two counter reads, a second apart
      for (StateField f : s.supported()) {
        boolean rate = f == StateField.PCIE_TX || f == StateField.PCIE_RX;
        assertThat(x.has(f)).as(f + " at " + x.timeNs()).isEqualTo(!rate || rateKnown);
      }
    }
    assertThat(xs.getLast().get(StateField.GPU_UTILIZATION)).isEqualTo(42);
    assertThat(xs.getLast().get(StateField.MEMORY_TOTAL)).isEqualTo(16.0 * (1L << 30));
  }

  @Test
  void unsupportedCallsAndFieldIdsAreReportedOnceAndNotMadeAgain() {
    NvmlSampler s = open(NvmlSampler.Intervals.DEFAULT);
    Map<StateField, String> first = s.unsupportedReasons();
    List<StateSample> xs = sampleEvery(s, 2 * S, 40);

    assertThat(first).containsOnlyKeys(StateField.RETIRED_PAGES, StateField.NVLINK_TX, StateField.NVLINK_RX);
    assertThat(first.get(StateField.RETIRED_PAGES)).isEqualTo("nvmlDeviceGetRetiredPages: NVML_ERROR_NOT_SUPPORTED");
    assertThat(first.get(StateField.NVLINK_TX))
        .isEqualTo("nvmlDeviceGetFieldValues(138): NVML_ERROR_NOT_SUPPORTED");
    assertThat(s.unsupportedReasons()).isEqualTo(first);
    assertThat(s.supported()).doesNotContainAnyElementsOf(first.keySet());
    assertThat(fake.calls("nvmlDeviceGetRetiredPages")).as("only at the open").isEqualTo(1);
    assertThat(fake.fieldRequests(Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_TX)).as("only at the open").isEqualTo(1);
    assertThat(fake.fieldRequests(Nvml.FI_DEV_NVLINK_THROUGHPUT_DATA_RX)).isEqualTo(1);
    assertThat(fake.fieldRequests(Nvml.FI_DEV_PCIE_COUNT_TX_BYTES)).isEqualTo(41);
    assertThat(s.errors()).isZero();
    for (StateSample x : xs) {
      for (StateField f : first.keySet()) {
        assertThat(x.has(f)).as(f + " is unsupported, so NaN").isFalse();
      }
    }
  }

  @Test
  void countersOnTheirOwnIntervalAreReadOncePerIntervalAndCarriedInBetween() {
    NvmlSampler s = open(new NvmlSampler.Intervals(Duration.ofSeconds(1), Duration.ofSeconds(10)));
    List<StateSample> xs = sampleEvery(s, 100 * MS, 30);  // reads at the open, +1 s, +2 s, +3 s

    assertThat(fake.calls("nvmlDeviceGetFieldValues")).isEqualTo(4);
    assertThat(xs.subList(0, 9)).allSatisfy(x -> assertThat(x.has(StateField.PCIE_TX))
        .as("the first read of a counter has no rate yet").isFalse());
    assertThat(xs.subList(9, 19)).as("the fake's counter grows 0x2000 B per call, read 1 s apart")
        .allSatisfy(x -> assertThat(x.get(StateField.PCIE_TX)).isEqualTo(0x2000));
  }

  @Test
  void zeroIntervalsReadEveryTierEverySample() {
    NvmlSampler s = open(new NvmlSampler.Intervals(Duration.ZERO, Duration.ZERO));
    sampleEvery(s, MS, 10);

    assertThat(fake.calls("nvmlDeviceGetTotalEccErrors")).isEqualTo(4 * 11);
    assertThat(fake.calls("nvmlDeviceGetRemappedRows")).isEqualTo(11);
    assertThat(fake.calls("nvmlDeviceGetFieldValues")).isEqualTo(11);
  }

  @Test
  void nameAndUuidAreReadOnce() {
    NvmlSampler s = open(NvmlSampler.Intervals.DEFAULT);

    assertThat(s.name()).isEqualTo("Fake NVML Device");
    assertThat(s.name()).isEqualTo("Fake NVML Device");
    assertThat(s.uuid()).startsWith("GPU-");
    assertThat(s.uuid()).startsWith("GPU-");
    assertThat(fake.calls("nvmlDeviceGetName")).isEqualTo(1);
    assertThat(fake.calls("nvmlDeviceGetUUID")).isEqualTo(1);
  }

  @Test
  void negativeOrMissingIntervalsAreRejected() {
    assertThatThrownBy(() -> new NvmlSampler.Intervals(Duration.ofSeconds(-1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be negative");
    assertThatThrownBy(() -> new NvmlSampler.Intervals(Duration.ZERO, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be given");
  }
}
