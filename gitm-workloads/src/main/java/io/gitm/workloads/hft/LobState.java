package io.gitm.workloads.hft;

import static io.gitm.workloads.hft.LobLayout.STATE;

import io.gitm.device.Device;
import io.gitm.device.DeviceMemory;
import io.gitm.device.Stream;
import java.util.ArrayList;
import java.util.List;

/**
 * The book and feature state of hft-lob's instruments on the device, kept from batch to batch: each instrument's
 * order table and price levels, its level counts, live orders and error bits, and its features' running state.
 * Zeroed on {@code stream} when made.
 */
final class LobState implements AutoCloseable {
  final DeviceMemory ord;
  final DeviceMemory lv;
  final DeviceMemory nlv;
  final DeviceMemory live;
  final DeviceMemory err;
  final DeviceMemory fstate;
  private final Device device;
  private final Stream stream;
  private final List<DeviceMemory> all = new ArrayList<>();

  LobState(Device device, Stream stream, int n, HftLobWorkload.Params params) {
    this.device = device;
    this.stream = stream;
    boolean ok = false;
    try {
      ord = zeroed((long) n * (1L << params.logOrderSlots()) * 16);
      lv = zeroed((long) n * 2 * params.levels() * 8);
      nlv = zeroed(8L * n);
      live = zeroed(4L * n);
      err = zeroed(4L * n);
      fstate = zeroed(8L * STATE * n);
      device.synchronize();
      ok = true;
    } finally {
      if (!ok) {
        close();
      }
    }
  }

  private DeviceMemory zeroed(long bytes) {
    DeviceMemory d = device.malloc(bytes);
    all.add(d);
    device.memsetAsync(d, 0, 0, bytes, stream);
    return d;
  }

  @Override
  public void close() {
    for (DeviceMemory d : all) {
      d.close();
    }
    all.clear();
  }
}
