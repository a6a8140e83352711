package io.gitm.trace;

/** A CUDA grid or block shape. */
public record Dim3(int x, int y, int z) {
  public static final Dim3 ONE = new Dim3(1, 1, 1);

  public Dim3 {
    if (x < 0 || y < 0 || z < 0) {
      throw new IllegalArgumentException("negative dimension " + x + "x" + y + "x" + z);
    }
  }

  public static Dim3 of(int x) {
    return new Dim3(x, 1, 1);
  }

  public long volume() {
    return (long) x * y * z;
  }

  @Override
  public String toString() {
    return x + "x" + y + "x" + z;
  }
}
