package io.gitm.device;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** A backend that can open devices of one kind; implementations are listed in {@code META-INF/services}. */
public interface DeviceProvider {

  /** The backend's name, as {@code --device} takes it: {@code nvidia}, {@code sim}, {@code rocm}. */
  String kind();

  /** Whether this backend can open a device on this machine, and why not; must be cheap and never throw. */
  Probe probe();

  /** Detailed checks for {@code gitm doctor} (libraries found and from where, versions, permissions). */
  default java.util.List<DiagnosticCheck> diagnostics() {
    Probe p = probe();
    return java.util.List.of(new DiagnosticCheck(kind() + " backend",
        p.usable() ? DiagnosticCheck.Status.OK : DiagnosticCheck.Status.MISSING, p.reason(), p.fix()));
  }

  /** Opens a device; the caller closes it. */
  Device open(DeviceRequest request);

  /** All providers on the class path, in {@code ServiceLoader} order. */
  static List<DeviceProvider> all() {
    List<DeviceProvider> out = new ArrayList<>();
    ServiceLoader.load(DeviceProvider.class).forEach(out::add);
    return out;
  }

  /** The outcome of {@link #probe()}: usable or not, with a one-line reason and, when not, a fix. */
  record Probe(boolean usable, String reason, String fix, int deviceCount) {
    public static Probe ok(String reason, int deviceCount) {
      return new Probe(true, reason, "", deviceCount);
    }

    public static Probe no(String reason, String fix) {
      return new Probe(false, reason, fix, 0);
    }
  }
}
