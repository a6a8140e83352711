package io.gitm.cli;

import io.gitm.device.Device;
import io.gitm.device.DeviceProvider;
import io.gitm.device.DeviceRequest;
import io.gitm.device.Devices;
import io.gitm.device.SchedulingMode;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Which device a command runs on, shared by {@code run} and {@code calibrate}. */
final class DeviceOptions {
  @Option(names = "--device", paramLabel = "KIND", defaultValue = "auto",
      description = "auto (a usable GPU, else the simulated device), sim, or nvidia. Default: ${DEFAULT-VALUE}.")
  String kind;

  @Option(names = "--device-index", paramLabel = "N", defaultValue = "0", description = "Device ordinal. Default: 0.")
  int ordinal;

  @Option(names = "--sim-preset", paramLabel = "NAME", description = "Simulated device preset: h200, h100, a100.")
  String simPreset;

  @Option(names = "--sim-seed", paramLabel = "SEED", description = "Simulated device seed (deterministic runs).")
  Long simSeed;

  @Option(names = "--faults", paramLabel = "SPEC",
      description = "Faults to inject into the simulated device, e.g. thermal@5s:severity=0.4,allocator-churn.")
  String faults;

  /** The chosen provider; a name that is not a backend is bad usage, a backend that cannot run here a failure. */
  Devices.Choice choose(CommandLine cl) {
    var providers = DeviceProvider.all();
    boolean known = kind.equals("auto") || providers.stream().anyMatch(p -> p.kind().equals(kind));
    if (!known) {
      throw new CommandLine.ParameterException(cl, "unknown device '" + kind + "'; known: auto, "
          + String.join(", ", providers.stream().map(DeviceProvider::kind).toList()));
    }
    if (ordinal < 0) {
      throw new CommandLine.ParameterException(cl, "--device-index must be 0 or more");
    }
    Devices.Choice c;
    try {
      c = Devices.choose(kind, providers);
    } catch (IllegalArgumentException e) {
      throw new CliFailure(e.getMessage());
    }
    boolean sim = c.provider().kind().equals(Devices.SIMULATED);
    if (!sim && (simPreset != null || simSeed != null || faults != null)) {
      throw new CommandLine.ParameterException(cl, "--sim-preset, --sim-seed and --faults apply only to the simulated"
          + " device, and " + c.provider().kind() + " was chosen (" + c.reason() + ")");
    }
    return c;
  }

  /** The request the chosen device is opened with (also what the apply phase reopens). */
  DeviceRequest request() {
    Map<String, String> opts = new LinkedHashMap<>();
    if (simPreset != null) {
      opts.put("preset", simPreset);
    }
    if (simSeed != null) {
      opts.put("seed", Long.toString(simSeed));
    }
    if (faults != null) {
      opts.put("faults", faults);
    }
    return new DeviceRequest(ordinal, SchedulingMode.AUTO, opts);
  }

  /** Opens the chosen device; invalid simulator options become one-line usage errors. */
  Device open(CommandLine cl, Devices.Choice c) {
    Map<String, String> opts = new LinkedHashMap<>();
    if (simPreset != null) {
      opts.put("preset", simPreset);
    }
    if (simSeed != null) {
      opts.put("seed", Long.toString(simSeed));
    }
    if (faults != null) {
      opts.put("faults", faults);
    }
    try {
      return c.provider().open(new DeviceRequest(ordinal, SchedulingMode.AUTO, opts));
    } catch (IllegalArgumentException e) {
      if (c.provider().kind().equals(Devices.SIMULATED)) {
        throw new CommandLine.ParameterException(cl, Main.oneLine(e.getMessage()));
      }
      throw new CliFailure("cannot open " + c.provider().kind() + " device " + ordinal + ": "
          + Main.oneLine(e.getMessage()), e);
    }
  }
}
