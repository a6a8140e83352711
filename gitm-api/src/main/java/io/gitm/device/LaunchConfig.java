package io.gitm.device;

import io.gitm.trace.Dim3;

/** Grid, block and dynamic shared memory of one launch. */
public record LaunchConfig(Dim3 grid, Dim3 block, int dynamicSharedBytes) {
  public LaunchConfig {
    if (grid.volume() == 0 || block.volume() == 0) {
      throw new IllegalArgumentException("empty launch " + grid + " / " + block);
    }
    if (dynamicSharedBytes < 0) {
      throw new IllegalArgumentException("negative shared memory");
    }
  }

  /** A 1-D launch covering {@code n} threads in blocks of {@code blockSize}. */
  public static LaunchConfig cover(long n, int blockSize) {
    long blocks = Math.max(1, (n + blockSize - 1) / blockSize);
    if (blocks > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("too many blocks for " + n + " threads");
    }
    return new LaunchConfig(Dim3.of((int) blocks), Dim3.of(blockSize), 0);
  }
}
