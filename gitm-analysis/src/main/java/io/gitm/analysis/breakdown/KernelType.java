package io.gitm.analysis.breakdown;

import java.util.regex.Pattern;

/**
 * What a device operation does, with Holistic Trace Analysis's classification of kernel names. Copies and memsets
 * are {@link #MEMORY}. A kernel is {@link #COMMUNICATION} when its name starts with {@code nccl}, {@code hip} or
 * {@code hccl} or contains {@code ncclKernel}; else {@link #MEMORY} when it starts with {@code Memcpy},
 * {@code Memset} (either after {@code hip}) or {@code dma}; else {@link #COMPUTATION} unless its name contains
 * {@code Memcpy}, {@code Memset}, {@code dma} or {@code Sync}, or starts with {@code Stream Wait Event},
 * {@code cuda…LaunchKernel}, or one of the other runtimes' non-kernel prefixes ({@code runFunction}, {@code job_exe},
 * {@code packet}, {@code pe_exe}, {@code cpum_exe_subgraph}, {@code collective_subgraph_execution}); the rest is
 * {@link #OTHER}, which keeps the device busy but is in no kernel type.
 */
public enum KernelType {
  COMPUTATION, COMMUNICATION, MEMORY, OTHER;

  private static final Pattern COMM = Pattern.compile("nccl|hip|hccl|.*ncclKernel");
  private static final Pattern MEM = Pattern.compile("(hip)?Memcpy|(hip)?Memset|dma");
  private static final Pattern NOT_COMPUTE = Pattern.compile("nccl|.*Memcpy|.*Memset|.*dma|.*Sync|Stream Wait Event"
      + "|cuda.*LaunchKernel|runFunction|hip|job_exe|packet|pe_exe|cpum_exe_subgraph|hccl"
      + "|collective_subgraph_execution");

  /** The bit of this type in an overlap mask (COMPUTATION 1, COMMUNICATION 2, MEMORY 4, OTHER 8). */
  int bit() {
    return 1 << ordinal();
  }

  /** The type of a kernel of this name. */
  public static KernelType ofKernel(String name) {
    if (COMM.matcher(name).lookingAt()) {
      return COMMUNICATION;
    }
    if (MEM.matcher(name).lookingAt()) {
      return MEMORY;
    }
    return NOT_COMPUTE.matcher(name).lookingAt() ? OTHER : COMPUTATION;
  }

  /**
   * The name of a set of kernel types running at once, as HTA names it: the types in the order COMPUTATION,
   * COMMUNICATION, MEMORY joined by {@code " overlapping "} ({@code COMPUTATION overlapping MEMORY}).
   */
  static String label(int mask) {
    StringBuilder b = new StringBuilder();
    for (KernelType t : new KernelType[] {COMPUTATION, COMMUNICATION, MEMORY}) {
      if ((mask & t.bit()) != 0) {
        b.append(b.isEmpty() ? "" : " overlapping ").append(t.name());
      }
    }
    return b.toString();
  }
}
