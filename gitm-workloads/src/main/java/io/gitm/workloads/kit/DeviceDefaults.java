package io.gitm.workloads.kit;

import io.gitm.device.Device;
import io.gitm.trace.DeviceKind;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The parameters a workload runs with on a device: the ones it was made with, or else the device's defaults (one
 * set for the simulated device, one for a real GPU) changed by the settings of a system property.
 *
 * @param <P> the workload's parameters
 */
public final class DeviceDefaults<P> {
  private final P fixed;
  private final String settings;
  private final Supplier<P> simulated;
  private final Supplier<P> gpu;
  private final BiFunction<P, String, P> parse;

  private DeviceDefaults(P fixed, String settings, Supplier<P> simulated, Supplier<P> gpu,
      BiFunction<P, String, P> parse) {
    this.fixed = fixed;
    this.settings = settings;
    this.simulated = simulated;
    this.gpu = gpu;
    this.parse = parse;
  }

  /** Always {@code params}; {@code workload} names it in the refusal of null. */
  public static <P> DeviceDefaults<P> fixed(P params, String workload) {
    if (params == null) {
      throw new IllegalArgumentException(workload + ": params are required");
    }
    return new DeviceDefaults<>(params, null, null, null, null);
  }

  /**
   * The device's defaults with the settings of system property {@code property} applied by {@code parse}, when it
   * is set; a bad setting fails here, with its reason.
   */
  public static <P> DeviceDefaults<P> fromProperty(String property, Supplier<P> simulated, Supplier<P> gpu,
      BiFunction<P, String, P> parse) {
    String settings = System.getProperty(property);
    if (settings != null) {
      parse.apply(simulated.get(), settings);
    }
    return new DeviceDefaults<>(null, settings, simulated, gpu, parse);
  }

  /** The parameters a session on {@code device} runs with. */
  public P on(Device device) {
    if (fixed != null) {
      return fixed;
    }
    P base = device.info().kind() == DeviceKind.SIMULATED ? simulated.get() : gpu.get();
    return settings == null ? base : parse.apply(base, settings);
  }
}
