package io.gitm.nvidia.ffm;

import io.gitm.device.DeviceException;

/** A call into cuBLAS returned an error code. */
public class CublasException extends DeviceException {
  public CublasException(String function, int code, String codeName, String detail) {
    super(function, code, codeName, detail);
  }
}
