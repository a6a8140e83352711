package io.gitm.device;

/**
 * One process using a GPU, as the driver reports it (NVML's running compute processes): its pid in the driver's view,
 * its device memory, and its SM utilization over the driver's last sampling window (NaN when unknown).
 */
public record GpuProcess(long pid, long usedMemoryBytes, double smUtilization) {
}
