package io.gitm.nvidia.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.api.Ticker;
import io.gitm.device.DeviceException;
import io.gitm.nvidia.cuda.BusyNeighbour;
import io.gitm.nvidia.cuda.CudaProvider;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real second process on the GPU ({@link BusyNeighbour}, a child JVM keeping a kernel loop busy) while this JVM
 * samples device 0: the sampler's other-process fields show it while it runs and not before it started.
 */
@Tag("gpu")
class NvmlNeighbourGpuTest {
  /** Samples every 100 ms for {@code ms}, each reading the process list (the counters' tier every sample). */
  private static List<StateSample> sampleFor(NvmlSampler s, long ms) {
    List<StateSample> out = new ArrayList<>();
    long end = System.nanoTime() + ms * 1_000_000;
    while (System.nanoTime() < end) {
      out.add(s.sample());
      LockSupport.parkNanos(100_000_000);
    }
    return out;
  }

  private static String show(List<StateSample> xs) {
    StringBuilder b = new StringBuilder();
    for (StateSample x : xs) {
      b.append(String.format(java.util.Locale.ROOT, " (%.0f, %.0f%%)", x.get(StateField.OTHER_PROCESSES),
          x.get(StateField.OTHER_SM_UTILIZATION)));
    }
    return b.toString();
  }

  @Test
  void aSecondProcessUsingTheGpuIsAnOtherProcessWhileItRunsAndNotBefore() throws Exception {
    Assumptions.assumeTrue(new CudaProvider().probe().usable(), "no CUDA device usable");
    NvmlSampler s;
    try {
      s = NvmlSampler.open(0, Ticker.system(), new NvmlSampler.Intervals(Duration.ZERO, Duration.ofSeconds(10)));
    } catch (DeviceException e) {
      Assumptions.abort("NVML not usable: " + e.getMessage());
      throw e;
    }
    Assumptions.assumeTrue(s.supported().contains(StateField.OTHER_PROCESSES),
        () -> "the process list is not readable here: " + s.unsupportedReasons());
    System.out.println("[gpu] processes on device 0 before the neighbour: " + s.processes() + " (this pid "
        + ProcessHandle.current().pid() + ")");
    List<StateSample> before = sampleFor(s, 1000);
    System.out.println("[gpu] before the neighbour (other processes, their SM %):" + show(before));

    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
        System.getProperty("java.class.path"), BusyNeighbour.class.getName(), "30")
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    List<StateSample> during;
    List<StateSample> after;
    String done;
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String busy = out.readLine();
      assertThat(busy).as("the child's first line").isNotNull().startsWith("busy ");
      long childPid = Long.parseLong(busy.substring(5).trim());
      assertThat(childPid).isEqualTo(child.pid());
      during = sampleFor(s, 3000);
      System.out.println("[gpu] processes on device 0 with the neighbour (pid " + childPid + "): " + s.processes());
      child.getOutputStream().close();
      done = out.readLine();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the child ends when its input does").isTrue();
    } finally {
      child.destroyForcibly();
    }
    after = sampleFor(s, 1000);
    System.out.println("[gpu] with the neighbour (other processes, their SM %):" + show(during));
    System.out.println("[gpu] after the neighbour ended (" + done + "):" + show(after));
    System.out.println("[gpu] unsupported: " + s.unsupportedReasons() + ", errors " + s.errors());

    assertThat(before).allSatisfy(x -> assertThat(x.get(StateField.OTHER_PROCESSES))
        .as("before the neighbour started").isZero());
    assertThat(during).allSatisfy(x -> assertThat(x.get(StateField.OTHER_PROCESSES))
        .as("while the neighbour runs").isGreaterThanOrEqualTo(1));
    assertThat(child.exitValue()).isZero();
  }
}
