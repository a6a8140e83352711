package io.gitm.sim;

import io.gitm.device.MemPool;

/**
 * The default stream-ordered pool of a simulated device: reserves memory, serves allocations from it, trims at
 * synchronizations down to its release threshold (never below what is in use).
 */
final class SimPool implements MemPool {
  private final SimSpec spec;
  private final SimDevice device;
  long reserved;
  long used;
  long threshold;

  SimPool(SimSpec spec, SimDevice device) {
    this.spec = spec;
    this.device = device;
  }

  /** Host time of a stream-ordered allocation of {@code bytes}. */
  double alloc(long bytes) {
    used += bytes;
    if (used <= reserved) {
      return spec.poolAllocNs();
    }
    long grow = used - reserved;
    reserved = used;
    return spec.poolGrowNs() + spec.mallocNsPerMiB() * ((double) grow / Allocator.MiB);
  }

  void trim() {
    reserved = Math.max(used, Math.min(reserved, threshold));
  }

  @Override
  public long releaseThreshold() {
    synchronized (device) {
      return threshold;
    }
  }

  @Override
  public void setReleaseThreshold(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("negative pool release threshold " + bytes);
    }
    synchronized (device) {
      threshold = bytes;
      device.query("cuMemPoolSetAttribute");
    }
  }

  @Override
  public long reservedBytes() {
    synchronized (device) {
      return reserved;
    }
  }
}
