package io.gitm.device;

/** The device, driver or library lacks a function or feature; callers treat it as "unsupported", not a crash. */
public class UnsupportedFeatureException extends DeviceException {
  public UnsupportedFeatureException(String function, String detail) {
    super(function, -1, "UNSUPPORTED", detail);
  }
}
