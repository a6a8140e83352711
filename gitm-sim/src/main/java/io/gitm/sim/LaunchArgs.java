package io.gitm.sim;

import io.gitm.device.KernelArgs;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A launch's arguments as an emulation sees them. */
record LaunchArgs(Object[] a) implements KernelArgs {
  @Override
  public int count() {
    return a.length;
  }

  private Object at(int i) {
    if (i < 0 || i >= a.length) {
      throw new IndexOutOfBoundsException("argument " + i + " of " + a.length);
    }
    return a[i];
  }

  @Override
  public ByteBuffer memory(int index) {
    if (at(index) instanceof SimMemory m) {
      return m.data().duplicate().order(ByteOrder.LITTLE_ENDIAN).clear();
    }
    throw new IllegalArgumentException("argument " + index + " is not device memory");
  }

  private Number num(int i) {
    if (at(i) instanceof Number n) {
      return n;
    }
    throw new IllegalArgumentException("argument " + i + " is not a scalar");
  }

  @Override
  public int i32(int index) {
    return num(index).intValue();
  }

  @Override
  public long i64(int index) {
    return num(index).longValue();
  }

  @Override
  public float f32(int index) {
    return num(index).floatValue();
  }

  @Override
  public double f64(int index) {
    return num(index).doubleValue();
  }
}
