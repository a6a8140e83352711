package io.gitm.nvidia.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.DeviceRequest;
import io.gitm.device.Event;
import io.gitm.device.Kernel;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Module;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How another process's context shares the GPU with this one (no MPS): the device time of a long kernel (a saxpy over
 * 2^28 floats, about 1 ms alone) and of the gaps between back-to-back launches, measured with timing events, alone
 * and while {@link BusyNeighbour} keeps its own saxpy loop running in a child JVM. A kernel the driver pauses for the
 * other context's time slice lasts about a slice longer; one that is never paused keeps its duration and the waiting
 * shows between kernels. What it prints ({@code [gpu]} lines) is what the simulator's {@code time-slicing} fault is
 * checked against (docs/sim.md).
 */
@Tag("gpu")
class TimeSliceGpuTest {
  private static final int N = 1 << 28;
  private static final int LAUNCHES = 40;

  /** Per launch: the kernel's device time, then the gap to the next one's start, in milliseconds. */
  private static double[][] measure(Device d, Kernel k, DeviceMemory x, DeviceMemory y) {
    LaunchConfig cover = LaunchConfig.cover(N, 256);
    Event[] before = new Event[LAUNCHES];
    Event[] after = new Event[LAUNCHES];
    try {
      for (int i = 0; i < LAUNCHES; i++) {
        before[i] = d.createEvent(true);
        after[i] = d.createEvent(true);
      }
      for (int i = 0; i < LAUNCHES; i++) {
        before[i].record(d.defaultStream());
        d.launch(k, cover, d.defaultStream(), y, x, 1.0f, N);
        after[i].record(d.defaultStream());
      }
      d.synchronize();
      double[] kernel = new double[LAUNCHES];
      double[] gap = new double[LAUNCHES - 1];
      for (int i = 0; i < LAUNCHES; i++) {
        kernel[i] = after[i].elapsedMillisSince(before[i]);
        if (i + 1 < LAUNCHES) {
          gap[i] = before[i + 1].elapsedMillisSince(after[i]);
        }
      }
      return new double[][] {kernel, gap};
    } finally {
      for (int i = 0; i < LAUNCHES; i++) {
        if (before[i] != null) {
          before[i].close();
        }
        if (after[i] != null) {
          after[i].close();
        }
      }
    }
  }

  private static String show(String what, double[] ms) {
    double[] s = ms.clone();
    Arrays.sort(s);
    return String.format(Locale.ROOT, "%s: median %.3f ms, p10 %.3f, p90 %.3f, max %.3f, sum %.2f ms (n=%d)", what,
        s[s.length / 2], s[s.length / 10], s[s.length * 9 / 10], s[s.length - 1], Arrays.stream(s).sum(), s.length);
  }

  @Test
  void aLongKernelBesideAnotherProcessesContextIsTimedAloneAndShared() throws Exception {
    Assumptions.assumeTrue(new CudaProvider().probe().usable(), "no CUDA device usable");
    try (Device d = new CudaProvider().open(DeviceRequest.first()); Module m = d.load(Gpu.SELFTEST);
        DeviceMemory x = d.malloc(4L * N); DeviceMemory y = d.malloc(4L * N)) {
      d.memsetAsync(x, 0, 0, 4L * N, d.defaultStream());
      d.memsetAsync(y, 0, 0, 4L * N, d.defaultStream());
      Kernel k = m.kernel("gitm_saxpy");
      measure(d, k, x, y);
      double[][] alone = measure(d, k, x, y);
      System.out.println("[gpu] alone, " + show("kernel", alone[0]));
      System.out.println("[gpu] alone, " + show("gap", alone[1]));

      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      Process child = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
          System.getProperty("java.class.path"), BusyNeighbour.class.getName(), "30")
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      double[][] shared;
      try {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String busy = out.readLine();
        assertThat(busy).as("the child's first line").isNotNull().startsWith("busy ");
        shared = measure(d, k, x, y);
        child.getOutputStream().close();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the child ends when its input does").isTrue();
      } finally {
        child.destroyForcibly();
      }
      System.out.println("[gpu] beside another process, " + show("kernel", shared[0]));
      System.out.println("[gpu] beside another process, " + show("gap", shared[1]));
      assertThat(Arrays.stream(alone[0]).min().orElseThrow()).isPositive();
      assertThat(Arrays.stream(shared[0]).min().orElseThrow()).isPositive();
      // the other context took device time: the launches took longer in all, in the kernels or between them
      assertThat(Arrays.stream(shared[0]).sum() + Arrays.stream(shared[1]).sum())
          .isGreaterThan(Arrays.stream(alone[0]).sum() + Arrays.stream(alone[1]).sum());
    }
  }
}
