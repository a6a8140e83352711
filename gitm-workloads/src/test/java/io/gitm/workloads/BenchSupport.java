package io.gitm.workloads;

import io.gitm.device.DeviceProvider;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the workloads' benches share: their {@code --name value} arguments and the device backend they run on. */
public final class BenchSupport {
  private BenchSupport() {}

  /** {@code --name value} pairs, by name without the dashes. */
  public static Map<String, String> args(String[] args) {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
      }
      a.put(args[i].substring(2), args[i + 1]);
    }
    return a;
  }

  /** The backend of {@code kind} on the class path, usable here. */
  public static DeviceProvider usableProvider(String kind) {
    DeviceProvider provider = DeviceProvider.all().stream().filter(p -> p.kind().equals(kind)).findFirst()
        .orElseThrow(() -> new IllegalStateException("no " + kind + " backend on the class path"));
    DeviceProvider.Probe probe = provider.probe();
    if (!probe.usable()) {
      throw new IllegalStateException(kind + " not usable: " + probe.reason());
    }
    return provider;
  }
}
