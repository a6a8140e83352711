package io.gitm.nvidia.ffm;

import io.gitm.device.DeviceException;

/** A call into NVRTC returned an error code. */
public class NvrtcException extends DeviceException {
  public NvrtcException(String function, int code, String codeName, String detail) {
    super(function, code, codeName, detail);
  }
}
