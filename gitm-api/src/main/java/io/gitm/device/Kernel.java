package io.gitm.device;

/** A kernel ready to launch, with the attributes levers may set. */
public interface Kernel {
  KernelDef def();

  /** Registers per thread, or -1 when the backend cannot tell. */
  int registersPerThread();

  /** Preferred share of the unified L1/shared array given to shared memory, 0–100 percent. */
  void setPreferredSharedCarveout(int percent);

  /** Allows launches to ask for up to {@code bytes} of dynamic shared memory. */
  void setMaxDynamicSharedBytes(int bytes);
}
