package io.gitm.levers;

import io.gitm.device.SchedulingMode;
import io.gitm.workload.ExecutionConfig;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Everything a lever can change about how a job runs, without touching its code: the managed workload's execution
 * configuration, how the device context is opened (scheduling mode, and device settings such as a power limit or
 * application clocks: class C), the environment a process job receives, and the CPUs its host threads may run on.
 * Immutable; a lever maps one setup to another, and reverting is going back to the anchor setup.
 *
 * @param deviceSettings device-level settings by name (e.g. {@code power-limit-w}, {@code sm-clock-mhz}); empty =
 *     the device as found
 * @param environment variables set for a process job (and for the managed job's own process where they take effect
 *     at device open); empty = the environment as found
 * @param cpus CPUs the job's host threads are pinned to; empty = no pinning
 */
public record Setup(ExecutionConfig config, SchedulingMode scheduling, Map<String, String> deviceSettings,
    Map<String, String> environment, SortedSet<Integer> cpus) {
  public Setup {
    if (config == null) {
      throw new IllegalArgumentException("a setup needs an execution configuration");
    }
    scheduling = scheduling == null ? SchedulingMode.AUTO : scheduling;
    deviceSettings = Map.copyOf(deviceSettings == null ? Map.of() : deviceSettings);
    environment = Map.copyOf(environment == null ? Map.of() : environment);
    cpus = Collections.unmodifiableSortedSet(new TreeSet<>(cpus == null ? Set.of() : cpus));
  }

  /** The setup a job ships with: its shipped configuration and nothing changed around it. */
  public static Setup shipped() {
    return of(ExecutionConfig.shipped());
  }

  public static Setup of(ExecutionConfig config) {
    return new Setup(config, SchedulingMode.AUTO, Map.of(), Map.of(), null);
  }

  public Setup withConfig(ExecutionConfig c) {
    return new Setup(c, scheduling, deviceSettings, environment, cpus);
  }

  public Setup withScheduling(SchedulingMode m) {
    return new Setup(config, m, deviceSettings, environment, cpus);
  }

  public Setup withDeviceSetting(String name, String value) {
    Map<String, String> m = new TreeMap<>(deviceSettings);
    m.put(name, value);
    return new Setup(config, scheduling, m, environment, cpus);
  }

  public Setup withEnvironment(String name, String value) {
    Map<String, String> m = new TreeMap<>(environment);
    m.put(name, value);
    return new Setup(config, scheduling, deviceSettings, m, cpus);
  }

  public Setup withCpus(Set<Integer> c) {
    return new Setup(config, scheduling, deviceSettings, environment, new TreeSet<>(c));
  }

  /** Whether running under {@code other} needs the device context opened again (scheduling or device settings). */
  public boolean sameDeviceOpen(Setup other) {
    return scheduling == other.scheduling && deviceSettings.equals(other.deviceSettings)
        && environment.equals(other.environment);
  }
}
