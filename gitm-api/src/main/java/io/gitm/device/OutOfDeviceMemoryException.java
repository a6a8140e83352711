package io.gitm.device;

/** The device (or host, for pinned memory) could not provide the memory asked for. */
public class OutOfDeviceMemoryException extends DeviceException {
  public OutOfDeviceMemoryException(String function, int code, String codeName, String detail) {
    super(function, code, codeName, detail);
  }
}
