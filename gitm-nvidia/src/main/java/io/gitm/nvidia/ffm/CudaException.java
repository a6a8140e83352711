package io.gitm.nvidia.ffm;

import io.gitm.device.DeviceException;

/** A call into the CUDA driver API returned an error code. */
public class CudaException extends DeviceException {
  public CudaException(String function, int code, String codeName, String detail) {
    super(function, code, codeName, detail);
  }
}
