package io.gitm.device;

/**
 * A failed call into a device backend: the function, the backend's error code and its name. Backends raise
 * subclasses; an optimizer attached to a job reports these and never exits.
 */
public class DeviceException extends RuntimeException {
  private final String function;
  private final int code;
  private final String codeName;

  public DeviceException(String function, int code, String codeName, String detail) {
    super(function + " failed: " + codeName + " (" + code + ")"
        + (detail == null || detail.isEmpty() ? "" : ": " + detail));
    this.function = function;
    this.code = code;
    this.codeName = codeName;
  }

  public String function() {
    return function;
  }

  public int code() {
    return code;
  }

  public String codeName() {
    return codeName;
  }
}
