package io.gitm.device;

import java.util.List;
import java.util.Optional;

/** Chooses a device backend by name, or for {@code auto}: the first usable real backend, else the simulated one. */
public final class Devices {
  public static final String SIMULATED = "sim";

  private Devices() {}

  /** The outcome of a choice: the provider, and why it was chosen (shown by {@code gitm doctor} and runs). */
  public record Choice(DeviceProvider provider, String reason) {}

  public static Choice choose(String kind, List<DeviceProvider> providers) {
    if (kind == null || kind.isBlank() || kind.equals("auto")) {
      StringBuilder why = new StringBuilder();
      for (DeviceProvider p : providers) {
        if (p.kind().equals(SIMULATED)) {
          continue;
        }
        DeviceProvider.Probe probe = p.probe();
        if (probe.usable()) {
          return new Choice(p, "auto: " + p.kind() + " is usable (" + probe.reason() + ")");
        }
        why.append(why.isEmpty() ? "" : "; ").append(p.kind()).append(": ").append(probe.reason());
      }
      Optional<DeviceProvider> sim = providers.stream().filter(p -> p.kind().equals(SIMULATED)).findFirst();
      if (sim.isPresent()) {
        return new Choice(sim.get(), "auto: no usable GPU backend"
            + (why.isEmpty() ? "" : " (" + why + ")") + ", so the SIMULATED device");
      }
      throw new IllegalArgumentException(
          "no device backend is usable and the simulated device is not on the class path");
    }
    DeviceProvider p = providers.stream().filter(x -> x.kind().equals(kind)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown device '" + kind + "'; known: auto, "
            + String.join(", ", providers.stream().map(DeviceProvider::kind).toList())));
    DeviceProvider.Probe probe = p.probe();
    if (!probe.usable()) {
      throw new IllegalArgumentException("device '" + kind + "' is not usable here: " + probe.reason()
          + (probe.fix().isEmpty() ? "" : " (" + probe.fix() + ")"));
    }
    return new Choice(p, "requested: " + kind);
  }
}
