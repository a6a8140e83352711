package io.gitm.device;

import java.nio.ByteBuffer;

/**
 * A launch's arguments as a host emulation of the kernel sees them: device buffers as little-endian
 * {@link ByteBuffer}s over their whole contents, scalars by value.
 */
public interface KernelArgs {
  int count();

  ByteBuffer memory(int index);

  int i32(int index);

  long i64(int index);

  float f32(int index);

  double f64(int index);
}
