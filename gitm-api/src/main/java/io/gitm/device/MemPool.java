package io.gitm.device;

/** A stream-ordered memory pool. */
public interface MemPool {
  /** Bytes the pool keeps reserved instead of returning to the system at synchronization points. */
  long releaseThreshold();

  void setReleaseThreshold(long bytes);

  /** Bytes currently reserved by the pool. */
  long reservedBytes();
}
