package io.gitm.device;

/** A {@link KernelModule} loaded on a device. */
public interface Module extends AutoCloseable {
  KernelModule source();

  /** The loaded kernel for {@code entry}; fails if the module does not define it. */
  Kernel kernel(String entry);

  @Override
  void close();
}
