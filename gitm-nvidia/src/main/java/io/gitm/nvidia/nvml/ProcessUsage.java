package io.gitm.nvidia.nvml;

/**
 * One process on a device: its GPU memory, and its SM and memory utilization over NVML's last sampling window
 * (NaN when NVML had no utilization sample for it).
 */
public record ProcessUsage(int pid, long usedMemoryBytes, double smUtilization, double memoryUtilization) {
}
