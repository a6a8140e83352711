package io.gitm.nvidia.cupti;

import java.lang.foreign.MemorySegment;
import java.util.OptionalInt;

/**
 * Stream ids as CUPTI writes them in its kernel and copy records, for the CUDA facade's declared work to name the
 * stream its kernel is reported on: CUPTI numbers streams itself, and its ids need not equal the driver's
 * ({@code cuStreamGetId}) once the process has other contexts or streams.
 */
public final class CuptiStreams {
  private CuptiStreams() {}

  /** CUPTI's id of {@code stream} (NULL: the legacy default stream) in {@code context}; empty without CUPTI. */
  public static OptionalInt idOf(MemorySegment context, MemorySegment stream) {
    Cupti c;
    try {
      c = Cupti.instance();
    } catch (RuntimeException e) {
      return OptionalInt.empty();
    }
    return c.streamId(context, stream);
  }
}
