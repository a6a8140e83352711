package io.gitm.sim;

import io.gitm.device.DeviceException;
import io.gitm.device.Event;
import io.gitm.device.Stream;

/** An event of the simulated device: the device time and stream of its last record, -1 before one. */
final class SimEvent implements Event {
  final SimDevice device;
  final boolean timing;
  long time = -1;
  int stream = -1;

  SimEvent(SimDevice device, boolean timing) {
    this.device = device;
    this.timing = timing;
  }

  @Override
  public void record(Stream stream) {
    device.recordEvent(this, stream);
  }

  @Override
  public void synchronize() {
    device.synchronize(this);
  }

  @Override
  public float elapsedMillisSince(Event start) {
    if (!(start instanceof SimEvent s) || s.device != device) {
      throw new DeviceException("cuEventElapsedTime", 400, "CUDA_ERROR_INVALID_HANDLE", "event of another device");
    }
    return device.elapsed(s, this);
  }

  @Override
  public void close() {
  }
}
