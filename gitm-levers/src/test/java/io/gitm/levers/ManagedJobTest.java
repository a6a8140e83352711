package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.device.Device;
import io.gitm.device.DeviceException;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.MathMode;
import io.gitm.device.OutOfDeviceMemoryException;
import io.gitm.device.SchedulingMode;
import io.gitm.device.UnsupportedFeatureException;
import io.gitm.job.Job;
import io.gitm.job.ManagedJob;
import io.gitm.job.TrialFailure.Kind;
import io.gitm.job.TrialFailure;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.OutputDigest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManagedJobTest {
  @TempDir
  Path data;

  static boolean closed(Device d) {
    try {
      d.createStream(0).close();
      return false;
    } catch (DeviceException e) {
      return e.codeName().equals("CUDA_ERROR_INVALID_CONTEXT");
    }
  }

  static Kind kindOf(ThrowingCall c) {
    try {
      c.call();
    } catch (TrialFailure f) {
      return f.kind();
    } catch (Exception e) {
      throw new AssertionError("expected a trial failure, got " + e, e);
    }
    throw new AssertionError("expected a trial failure");
  }

  interface ThrowingCall {
    void call() throws Exception;
  }

  @Test
  void runsThatOpenTheDeviceAlikeShareOneDeviceAndRunSideBySide() throws Exception {
    ScriptedWorkload w = new ScriptedWorkload(100, 1000, 10, true);
    HftOnSim.Recording p = new HftOnSim.Recording();
    try (ManagedJob job = new ManagedJob(w, p, DeviceRequest.first(), data, 4)) {
      Setup a = Setup.shipped();
      Setup b = Setup.of(ExecutionConfig.shipped().withStreams(2, false, false));
      try (Job.Run ra = job.open(a); Job.Run rb = job.open(b)) {
        ra.block();
        rb.block();
        ra.block();
      }
      try (Job.Run rc = job.open(a)) {
        rc.block();
      }
      assertThat(job.devicesOpened()).isEqualTo(1);
      assertThat(w.sessions).hasSize(3).allMatch(s -> s.device == p.opened.getFirst());
    }
  }

  @Test
  void aSetupThatOpensTheDeviceDifferentlyGetsItsOwnDeviceAndIdleOnesAreClosed() throws Exception {
    ScriptedWorkload w = new ScriptedWorkload(100, 1000, 10, true);
    HftOnSim.Recording p = new HftOnSim.Recording();
    try (ManagedJob job = new ManagedJob(w, p, DeviceRequest.first(), data, 4)) {
      Setup spin = Setup.shipped().withScheduling(SchedulingMode.SPIN);
      try (Job.Run ra = job.open(Setup.shipped()); Job.Run rb = job.open(spin)) {
        ra.block();
        rb.block();
        assertThat(job.devicesOpened()).isEqualTo(2);
        assertThat(p.opened).noneMatch(ManagedJobTest::closed);
        assertThat(p.requests.get(1).scheduling()).isEqualTo(SchedulingMode.SPIN);
      }
      // Both devices idle: opening a third kind closes them first.
      try (Job.Run rc = job.open(Setup.shipped().withScheduling(SchedulingMode.YIELD))) {
        rc.block();
        assertThat(closed(p.opened.get(0))).isTrue();
        assertThat(closed(p.opened.get(1))).isTrue();
        assertThat(closed(p.opened.get(2))).isFalse();
      }
    }
    assertThat(closed(p.opened.get(2))).as("closed with the job").isTrue();
  }

  /**
   * A block's time is the device clock from its first step to the end of the synchronization that closes it, so the
   * metric is at most what the steps alone would give, and close to it when the device has nothing left to do.
   */
  @Test
  void theMetricIsUnitsPerSecondOfDeviceClockTimeOrMillisecondsPerBatchWhereLowerIsBetter() throws Exception {
    HftOnSim.Recording p = new HftOnSim.Recording();
    try (ManagedJob job = new ManagedJob(new ScriptedWorkload(100, 200_000, 30, true), p, DeviceRequest.first(), data,
        5); Job.Run r = job.open(Setup.shipped())) {
      assertThat(r.block()).isLessThanOrEqualTo(30 / 200_000e-9 * 1.05).isGreaterThan(30 / 200_000e-9 * 0.9);
      assertThat(job.metric()).isEqualTo("units/s");
    }
    ScriptedWorkload lower = new ScriptedWorkload(100, 2_000_000, 30, false);
    try (ManagedJob job = new ManagedJob(lower, p, DeviceRequest.first(), data, 5);
        Job.Run r = job.open(Setup.shipped())) {
      assertThat(r.block()).isGreaterThanOrEqualTo(2.0 * 0.95).isLessThan(2.0 * 1.1);
      assertThat(job.higherIsBetter()).isFalse();
      assertThat(lower.sessions.getFirst().done).isEqualTo(5);
    }
  }

  @Test
  void aBlockIsTheSameInputUnderCoalescingAndEndsWhereTheInputDoes() throws Exception {
    int blocks = 4; // 4 + 4 + 1 (input ends) + 4 from a fresh session
    OutputDigest shipped = hftAfter(Setup.shipped(), blocks);
    for (int k : new int[] {2, 4}) {
      OutputDigest coalesced = hftAfter(Setup.of(ExecutionConfig.shipped().withBatchCoalesce(k)), blocks);
      assertThat(coalesced).as("coalesce " + k).isEqualTo(shipped);
    }
    assertThat(shipped.values().length).as("two sessions' values").isEqualTo(2 * 2 * 40);
  }

  private OutputDigest hftAfter(Setup s, int blocks) throws Exception {
    try (ManagedJob job = new ManagedJob(HftOnSim.workload(), new HftOnSim.Recording(), DeviceRequest.first(), data,
        4); Job.Run r = job.open(s)) {
      for (int b = 0; b < blocks; b++) {
        r.block();
      }
      return r.output();
    }
  }

  @Test
  void aBlockSizeThatCoalescingCannotSplitIsRefused() {
    try (ManagedJob job = new ManagedJob(HftOnSim.workload(), new HftOnSim.Recording(), DeviceRequest.first(), data,
        6)) {
      assertThat(kindOf(() -> job.open(Setup.of(ExecutionConfig.shipped().withBatchCoalesce(4)))))
          .isEqualTo(Kind.SETUP_REFUSED);
    }
  }

  @Test
  void setupsTheJobOrDeviceCannotTakeAreRefused() {
    HftOnSim.Recording p = new HftOnSim.Recording();
    try (ManagedJob job = new ManagedJob(HftOnSim.workload(), p, DeviceRequest.first(), data, 4)) {
      assertThat(kindOf(() -> job.open(Setup.of(ExecutionConfig.shipped().withMathMode(MathMode.TF32)))))
          .as("a knob hft-lob does not honour").isEqualTo(Kind.SETUP_REFUSED);
      assertThat(kindOf(() -> job.open(Setup.of(ExecutionConfig.shipped().withGraphCapture(true)))))
          .as("graph capture without its prerequisites").isEqualTo(Kind.SETUP_REFUSED);
      assertThat(kindOf(() -> job.open(Setup.shipped().withEnvironment("CUDA_MODULE_LOADING", "EAGER"))))
          .as("an environment variable").isEqualTo(Kind.SETUP_REFUSED);
      assertThat(kindOf(() -> job.open(Setup.shipped().withDeviceSetting("sm-clock-mhz", "fast"))))
          .as("a device setting the sim rejects").isEqualTo(Kind.SETUP_REFUSED);
    }
    assertThat(p.opened).allMatch(ManagedJobTest::closed);
  }

  /** A provider whose devices fail to open with {@code failure}. */
  static DeviceProvider failing(Supplier<RuntimeException> failure) {
    return new DeviceProvider() {
      @Override
      public String kind() {
        return "broken";
      }

      @Override
      public Probe probe() {
        return Probe.ok("test", 1);
      }

      @Override
      public Device open(DeviceRequest request) {
        throw failure.get();
      }
    };
  }

  @Test
  void failuresToOpenTheDeviceMapToTheirKinds() {
    Map<Supplier<RuntimeException>, Kind> cases = Map.of(
        () -> new UnsupportedFeatureException("open", "no device settings on a real card"), Kind.SETUP_REFUSED,
        () -> new IllegalArgumentException("bad option"), Kind.SETUP_REFUSED,
        () -> new OutOfDeviceMemoryException("cuCtxCreate", 2, "CUDA_ERROR_OUT_OF_MEMORY", ""), Kind.OUT_OF_MEMORY,
        () -> new DeviceException("cuInit", 100, "CUDA_ERROR_NO_DEVICE", ""), Kind.DEVICE_ERROR,
        () -> new IllegalStateException("driver mismatch"), Kind.CRASH);
    cases.forEach((failure, kind) -> {
      try (ManagedJob job = new ManagedJob(new ScriptedWorkload(4, 1, 1, true), failing(failure),
          DeviceRequest.first(), data, 4)) {
        assertThat(kindOf(() -> job.open(Setup.shipped()))).as(failure.get().toString()).isEqualTo(kind);
      }
    });
  }

  @Test
  void failuresOfTheWorkloadMapToTheirKindsAndCloseWhatWasOpened() throws Exception {
    record Case(Supplier<RuntimeException> failure, boolean atOpen, Kind kind, boolean deviceDropped) {
    }
    List<Case> cases = List.of(
        new Case(() -> new OutOfDeviceMemoryException("cuMemAlloc_v2", 2, "CUDA_ERROR_OUT_OF_MEMORY", ""), true,
            Kind.OUT_OF_MEMORY, false),
        new Case(() -> new OutOfDeviceMemoryException("cuMemAlloc_v2", 2, "CUDA_ERROR_OUT_OF_MEMORY", ""), false,
            Kind.OUT_OF_MEMORY, false),
        new Case(() -> new IllegalArgumentException("bad knob"), true, Kind.SETUP_REFUSED, false),
        new Case(() -> new IllegalArgumentException("bad state"), false, Kind.CRASH, true),
        new Case(() -> new DeviceException("cuLaunchKernel", 719, "CUDA_ERROR_LAUNCH_FAILED", ""), false,
            Kind.DEVICE_ERROR, true),
        new Case(() -> new DeviceException("cuModuleLoadData", 218, "CUDA_ERROR_INVALID_PTX", ""), true,
            Kind.DEVICE_ERROR, true),
        new Case(() -> new UnsupportedFeatureException("cuGraphLaunch", "old driver"), false, Kind.SETUP_REFUSED,
            false),
        new Case(() -> new IllegalStateException("bug"), false, Kind.CRASH, true));
    for (Case c : cases) {
      ScriptedWorkload w = new ScriptedWorkload(100, 1000, 10, true);
      HftOnSim.Recording p = new HftOnSim.Recording();
      String what = c.failure().get() + (c.atOpen() ? " at open" : " in a block");
      try (ManagedJob job = new ManagedJob(w, p, DeviceRequest.first(), data, 4)) {
        if (c.atOpen()) {
          w.onOpen = c.failure();
          assertThat(kindOf(() -> job.open(Setup.shipped()))).as(what).isEqualTo(c.kind());
        } else {
          w.onStep = c.failure();
          w.failAtStep = 5;
          Job.Run r = job.open(Setup.shipped());
          r.block();
          assertThat(kindOf(r::block)).as(what).isEqualTo(c.kind());
          assertThat(w.sessions.getFirst().closed).as(what + ": session closed").isTrue();
          assertThat(kindOf(r::block)).as(what + ": later blocks").isEqualTo(c.kind());
          assertThatThrownBy(r::output).isInstanceOf(IllegalStateException.class);
          r.close();
        }
        assertThat(closed(p.last())).as(what + ": device dropped").isEqualTo(c.deviceDropped());
      }
      assertThat(closed(p.last())).as(what + ": closed with the job").isTrue();
    }
  }

  @Test
  void closingTheJobClosesRunsStillOpen() throws Exception {
    ScriptedWorkload w = new ScriptedWorkload(100, 1000, 10, true);
    HftOnSim.Recording p = new HftOnSim.Recording();
    ManagedJob job = new ManagedJob(w, p, DeviceRequest.first(), data, 4);
    Job.Run r = job.open(Setup.shipped());
    r.block();
    job.close();
    assertThat(w.sessions.getFirst().closed).isTrue();
    assertThat(closed(p.last())).isTrue();
    assertThatThrownBy(() -> job.open(Setup.shipped())).isInstanceOf(IllegalStateException.class);
    r.close();
  }

  @Test
  void badConstructionIsAOneLineError() {
    assertThatThrownBy(() -> new ManagedJob(new ScriptedWorkload(1, 1, 1, true), new HftOnSim.Recording(),
        DeviceRequest.first(), data, 0)).hasMessage("a block needs at least one iteration, got 0");
    assertThatThrownBy(() -> new ManagedJob(null, new HftOnSim.Recording(), DeviceRequest.first(), data, 1))
        .hasMessageContaining("needs a workload");
  }

  @Test
  void afterTheInputRunsOutTheOutputDigestsEverySessionInOrder() throws Exception {
    OutputDigest one = scriptedAfter(1);
    OutputDigest two = scriptedAfter(2);
    assertThat(one.sha256()).isEqualTo("steps-1");
    assertThat(two.sha256()).isNotEqualTo(one.sha256()).hasSize(64);
    assertThat(two).isEqualTo(scriptedAfter(2));
    assertThat(two.values()).containsExactly(1, 1);
    assertThat(scriptedAfter(3)).isNotEqualTo(two);
  }

  /** The output after {@code blocks} blocks of a workload whose input is one step long. */
  private OutputDigest scriptedAfter(int blocks) throws Exception {
    ScriptedWorkload w = new ScriptedWorkload(1, 1000, 1, true);
    try (ManagedJob job = new ManagedJob(w, new HftOnSim.Recording(), DeviceRequest.first(), data, 1);
        Job.Run r = job.open(Setup.shipped())) {
      for (int b = 0; b < blocks; b++) {
        r.block();
      }
      assertThat(w.sessions).hasSize(blocks);
      assertThat(w.sessions.subList(0, blocks - 1)).allMatch(s -> s.closed);
      return r.output();
    }
  }
}
