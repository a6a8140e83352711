package io.gitm.device;

/** How a host thread waits for the device (CUDA's {@code CU_CTX_SCHED_*}). */
public enum SchedulingMode {
  AUTO, SPIN, YIELD, BLOCKING_SYNC
}
