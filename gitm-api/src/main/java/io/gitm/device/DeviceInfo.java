package io.gitm.device;

import io.gitm.trace.DeviceKind;

/**
 * What a device is. {@code kind} says whether it is real or simulated; every output that names a device shows it.
 *
 * @param computeCapability e.g. {@code 9.0}
 * @param driverVersion the driver's version string, or the simulator's preset for {@code sim}
 */
public record DeviceInfo(String backend, DeviceKind kind, int ordinal, String name, String uuid,
    String computeCapability, int multiprocessors, long totalMemoryBytes, int l2CacheBytes, String driverVersion,
    int leastStreamPriority, int greatestStreamPriority) {
}
