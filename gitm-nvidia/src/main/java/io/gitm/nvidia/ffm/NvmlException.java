package io.gitm.nvidia.ffm;

import io.gitm.device.DeviceException;

/** A call into NVML returned an error code. */
public class NvmlException extends DeviceException {
  public NvmlException(String function, int code, String codeName, String detail) {
    super(function, code, codeName, detail);
  }
}
