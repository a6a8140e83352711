package io.gitm.levers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gitm.analysis.attribution.Cause;
import io.gitm.device.DeviceRequest;
import io.gitm.device.SchedulingMode;
import io.gitm.job.Job;
import io.gitm.job.ManagedJob;
import io.gitm.job.TrialFailure;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The environment levers of process jobs and the class-C device-setting levers. */
class ProcessAndDeviceLeversTest {
  @TempDir
  Path data;

  @Test
  void environmentLeversSetTheirVariableForAProcessJobAndRefuseManagedJobs() {
    Map<String, String> expected = Map.of("env-expandable-segments", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
        "env-device-max-connections", "CUDA_DEVICE_MAX_CONNECTIONS=32",
        "env-module-loading-eager", "CUDA_MODULE_LOADING=EAGER",
        "env-tf32-override", "NVIDIA_TF32_OVERRIDE=1",
        "env-torch-tf32", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1",
        "env-cuda-malloc-async", "PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync",
        "env-omp-threads", "OMP_NUM_THREADS=2");
    LeverContext process = Contexts.process(Contexts.REAL_H200, Setup.shipped());
    expected.forEach((id, assignment) -> {
      Lever l = Levers.byId(id);
      assertThat(l.scope()).isEqualTo(Lever.Scope.PROCESS);
      assertThat(l.check(process).applies()).as(id + ": " + l.check(process).reason()).isTrue();
      Setup s = l.apply(Setup.shipped(), process);
      String[] kv = assignment.split("=", 2);
      assertThat(s.environment()).containsExactly(Map.entry(kv[0], kv[1]));
      assertThat(s.config()).isEqualTo(Setup.shipped().config());
      assertThat(l.check(Contexts.hft(Setup.shipped())).reason()).as(id).contains("managed job");
    });
    assertThat(Levers.byId("env-tf32-override").safety()).isEqualTo(SafetyClass.B);
    assertThat(Levers.byId("env-torch-tf32").safety()).isEqualTo(SafetyClass.B);
    assertThat(Levers.all().stream().filter(l -> l instanceof EnvironmentLever || l instanceof OmpThreads)
        .map(Lever::id)).containsExactlyInAnyOrderElementsOf(expected.keySet());
  }

  @Test
  void ompThreadsFollowThePinnedCpusAndNeedToKnowThem() {
    Lever l = Levers.byId("env-omp-threads");
    Setup pinned = Setup.shipped().withCpus(Set.of(4, 5, 6));
    assertThat(l.apply(pinned, Contexts.process(Contexts.REAL_H200, pinned)).environment())
        .containsEntry("OMP_NUM_THREADS", "3");
    LeverContext blind = new LeverContext(null, Contexts.REAL_H200, List.of(), Map.of(), false, null);
    assertThat(l.check(blind).reason()).contains("unknown");
  }

  @Test
  void processAffinityPinsAProcessJobAndNotAManagedOne() {
    Lever l = Levers.byId("process-cpu-affinity");
    LeverContext p = Contexts.process(Contexts.REAL_H200, Setup.shipped());
    assertThat(l.check(p).applies()).isTrue();
    assertThat(l.apply(Setup.shipped(), p).cpus()).containsExactly(1);
    assertThat(l.check(Contexts.hft(Setup.shipped())).applies()).isFalse();
  }

  @Test
  void deviceSettingLeversNeedPermissionASimulatedDeviceAndASuspectedCause() {
    for (String id : List.of("power-limit-restore", "sm-clock-restore")) {
      Lever l = Levers.byId(id);
      assertThat(l.safety()).isEqualTo(SafetyClass.C);
      assertThat(l.scope()).isEqualTo(Lever.Scope.DEVICE);
      Cause cause = l.addresses().iterator().next();
      List<io.gitm.analysis.attribution.Hypothesis> h = List.of(Contexts.suspect(cause));
      LeverContext ok = new LeverContext(Contexts.HFT, Contexts.SIM_H200, h, Map.of(), true, null);
      assertThat(l.check(ok).applies()).as(id).isTrue();
      assertThat(l.check(new LeverContext(Contexts.HFT, Contexts.SIM_H200, h, Map.of(), false, null)).reason())
          .contains("--allow-device-settings");
      assertThat(l.check(new LeverContext(Contexts.HFT, Contexts.REAL_H200, h, Map.of(), true, null)).reason())
          .contains("simulated device only").contains("REAL");
      assertThat(l.check(new LeverContext(Contexts.HFT, Contexts.SIM_H200, List.of(), Map.of(), true, null)).reason())
          .contains("does not suspect");
      Setup s = l.apply(Setup.shipped(), ok);
      assertThat(s.deviceSettings()).hasSize(1).containsValue("default");
      assertThat(s.sameDeviceOpen(Setup.shipped())).isFalse();
    }
  }

  @Test
  void aDeviceSettingTheSimCannotHonourIsARefusedSetup() {
    HftOnSim.Recording p = new HftOnSim.Recording();
    try (ManagedJob job = new ManagedJob(HftOnSim.workload(), p, DeviceRequest.first(), data, 9)) {
      Setup tooMuch = Setup.shipped().withDeviceSetting(DeviceRequest.POWER_LIMIT_W, "5000");
      assertThatThrownBy(() -> job.open(tooMuch)).isInstanceOf(TrialFailure.class)
          .hasMessageContaining("power-limit-w=5000 is outside")
          .extracting(e -> ((TrialFailure) e).kind()).isEqualTo(TrialFailure.Kind.SETUP_REFUSED);
    }
  }

  @Test
  void theDeviceIsOpenedWithTheSetupsSchedulingAndSettings() throws Exception {
    HftOnSim.Recording p = new HftOnSim.Recording();
    try (ManagedJob job = new ManagedJob(HftOnSim.workload(), p, new DeviceRequest(0, SchedulingMode.AUTO,
        Map.of("seed", "3")), data, 9)) {
      Setup s = Setup.shipped().withScheduling(SchedulingMode.YIELD).withDeviceSetting(DeviceRequest.SM_CLOCK_MHZ,
          "1500");
      try (Job.Run r = job.open(s)) {
        r.block();
      }
      assertThat(p.requests).hasSize(1);
      assertThat(p.requests.getFirst().scheduling()).isEqualTo(SchedulingMode.YIELD);
      assertThat(p.requests.getFirst().options()).containsEntry("seed", "3").containsEntry("sm-clock-mhz", "1500");
      assertThat(p.last().sampler().sample().get(io.gitm.trace.StateField.SM_CLOCK)).isEqualTo(1500.0);
    }
  }
}
