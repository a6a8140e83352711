package io.gitm.nvidia.cuda;

import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.DeviceRequest;
import io.gitm.device.Kernel;
import io.gitm.device.LaunchConfig;
import io.gitm.device.Module;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A second process on the GPU for the neighbour tests: keeps device 0 busy with the self-test saxpy kernel over 64 MiB
 * until its standard input ends or {@code args[0]} seconds pass. Prints {@code busy <pid>} once its first kernels
 * have run (its context is then on the device), and {@code done <launches>} at the end.
 */
public final class BusyNeighbour {
  private BusyNeighbour() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: BusyNeighbour SECONDS, got " + args.length + " arguments");
    }
    long until = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
    AtomicBoolean stop = new AtomicBoolean();
    Thread.ofPlatform().daemon().start(() -> {
      try {
        while (System.in.read() >= 0) {
          // any input but its end is ignored
        }
      } catch (java.io.IOException e) {
        // the parent went away: stop as at the end of input
      }
      stop.set(true);
    });
    int n = 1 << 24;
    long launches = 0;
    try (Device d = new CudaProvider().open(DeviceRequest.first()); Module m = d.load(Gpu.SELFTEST);
        DeviceMemory x = d.malloc(4L * n); DeviceMemory y = d.malloc(4L * n)) {
      d.memsetAsync(x, 0, 0, 4L * n, d.defaultStream());
      d.memsetAsync(y, 0, 0, 4L * n, d.defaultStream());
      Kernel k = m.kernel("gitm_saxpy");
      LaunchConfig cover = LaunchConfig.cover(n, 256);
      boolean announced = false;
      while (!stop.get() && System.nanoTime() < until) {
        for (int i = 0; i < 64; i++) {
          d.launch(k, cover, d.defaultStream(), y, x, 1.0f, n);
        }
        d.synchronize();
        launches += 64;
        if (!announced) {
          System.out.println("busy " + ProcessHandle.current().pid());
          System.out.flush();
          announced = true;
        }
      }
    }
    System.out.println("done " + launches);
  }
}
