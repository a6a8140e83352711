package io.gitm.nvidia.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.api.Ticker;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The device's other tenants in the sampler's state samples ({@link StateField#OTHER_PROCESSES},
 * {@link StateField#OTHER_SM_UTILIZATION}) against the fake libnvidia-ml, whose process list and per-process
 * utilization the tests set: which pids count as the job's, and that a failing query leaves the fields NaN.
 */
class NvmlSamplerTenantsTest {
  private static final long S = 1_000_000_000L;

  private FakeNvml fake;
  private long now = 5 * S;
  private final Ticker ticker = () -> now;

  @BeforeEach
  void fake() throws Exception {
    fake = FakeNvml.load();
    fake.reset();
  }

  private NvmlSampler open() {
    return NvmlSampler.of(fake.functions, 0, fake.device(), ticker, NvmlSampler.Intervals.DEFAULT);
  }

  /** A sample that reads the counters' tier again (a second after the last). */
  private StateSample next(NvmlSampler s) {
    now += S;
    return s.sample();
  }

  @Test
  void theJobAloneOnItsDeviceHasNoOtherProcessAndNoOtherSmUse() {
    StateSample x = next(open());
    assertThat(x.get(StateField.OTHER_PROCESSES)).isZero();
    assertThat(x.get(StateField.OTHER_SM_UTILIZATION)).isZero();
  }

  @Test
  void processesThatAreNotThisJvmAreNeighboursAndTheirSmUseIsSummed() {
    NvmlSampler s = open();
    fake.setProcesses(new int[] {0, 4242, 4343}, new int[] {33, 20, 15});
    StateSample x = next(s);
    assertThat(x.get(StateField.OTHER_PROCESSES)).isEqualTo(2);
    assertThat(x.get(StateField.OTHER_SM_UTILIZATION)).isEqualTo(35);
    fake.setProcesses(new int[] {0}, new int[] {50});
    StateSample gone = next(s);
    assertThat(gone.get(StateField.OTHER_PROCESSES)).as("the neighbours left").isZero();
    assertThat(gone.get(StateField.OTHER_SM_UTILIZATION)).isZero();
  }

  @Test
  void aBlackBoxJobsPidsAreTheJobsAndThisJvmIsThenANeighbour() {
    NvmlSampler s = open();
    s.jobProcesses(() -> Set.of(4242L, 4343L));
    fake.setProcesses(new int[] {0, 4242, 4343}, new int[] {33, 20, 15});
    StateSample x = next(s);
    assertThat(x.get(StateField.OTHER_PROCESSES)).isEqualTo(1);
    assertThat(x.get(StateField.OTHER_SM_UTILIZATION)).isEqualTo(33);
    assertThatThrownBy(() -> s.jobProcesses(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the job's pids must be given");
  }

  @Test
  void aProcessListThatFailsLeavesBothFieldsNaNAndIsTriedAgain() {
    NvmlSampler s = open();
    fake.setProcesses(new int[] {0, 4242}, new int[] {33, 20});
    fake.setProcessCodes(999, 0);  // NVML_ERROR_UNKNOWN: transient
    StateSample failed = next(s);
    assertThat(failed.has(StateField.OTHER_PROCESSES)).isFalse();
    assertThat(failed.has(StateField.OTHER_SM_UTILIZATION)).isFalse();
    assertThat(s.errors()).isEqualTo(1);
    assertThat(s.supported()).contains(StateField.OTHER_PROCESSES);
    fake.setProcessCodes(0, 0);
    assertThat(next(s).get(StateField.OTHER_PROCESSES)).isEqualTo(1);
  }

  @Test
  void anUnsupportedProcessListLeavesBothFieldsNaNWithTheReasonAndIsNotAskedAgain() {
    fake.setProcessCodes(3, 0);  // NVML_ERROR_NOT_SUPPORTED
    NvmlSampler s = open();
    StateSample x = next(s);
    next(s);
    assertThat(x.has(StateField.OTHER_PROCESSES)).isFalse();
    assertThat(x.has(StateField.OTHER_SM_UTILIZATION)).isFalse();
    assertThat(s.unsupportedReasons()).containsEntry(StateField.OTHER_PROCESSES,
        "nvmlDeviceGetComputeRunningProcesses_v3: NVML_ERROR_NOT_SUPPORTED");
    assertThat(s.supported()).doesNotContain(StateField.OTHER_PROCESSES, StateField.OTHER_SM_UTILIZATION);
    assertThat(fake.calls("nvmlDeviceGetComputeRunningProcesses_v3")).as("only at the open").isEqualTo(1);
    assertThat(s.errors()).isZero();
  }

  @Test
  void withoutPerProcessUtilizationOnlyTheSmUseIsNaN() {
    fake.setProcessCodes(0, 3);
    NvmlSampler s = open();
    fake.setProcesses(new int[] {0, 4242}, new int[] {33, 20});
    StateSample x = next(s);
    assertThat(x.get(StateField.OTHER_PROCESSES)).isEqualTo(1);
    assertThat(x.has(StateField.OTHER_SM_UTILIZATION)).isFalse();
    assertThat(s.unsupportedReasons()).containsEntry(StateField.OTHER_SM_UTILIZATION,
        "nvmlDeviceGetProcessUtilization: NVML_ERROR_NOT_SUPPORTED");
    assertThat(s.supported()).contains(StateField.OTHER_PROCESSES).doesNotContain(StateField.OTHER_SM_UTILIZATION);
  }

  @Test
  void theProcessListForTheReportStillGivesEachProcessWithItsMemoryAndSmUse() {
    NvmlSampler s = open();
    fake.setProcesses(new int[] {0, 4242}, new int[] {33, 20});
    next(s);
    assertThat(s.processes()).containsExactly(
        new ProcessUsage((int) ProcessHandle.current().pid(), 256L << 20, 33, 5),
        new ProcessUsage(4242, 256L << 20, 20, 5));
    fake.setProcessCodes(999, 0);
    assertThatThrownBy(s::processes).hasMessageContaining("NVML_ERROR_UNKNOWN");
  }

  @Test
  void aJobPidSupplierThatThrowsLeavesTheFieldsNaNAndCountsAnError() {
    NvmlSampler s = open();
    s.jobProcesses(() -> {
      throw new IllegalStateException("the job's process group is gone");
    });
    StateSample x = next(s);
    assertThat(x.has(StateField.OTHER_PROCESSES)).isFalse();
    assertThat(x.has(StateField.OTHER_SM_UTILIZATION)).isFalse();
    assertThat(s.errors()).isEqualTo(1);
  }
}
