package io.gitm.planner;

import java.util.List;

/**
 * The execution graph a job should have had: one node per device operation of the captured launch sequence, with
 * the time the model predicts for it, and the dependencies that follow from stream order, stream waits and host
 * synchronizations (which decide what is predicted to run concurrently).
 *
 * <p>The structure (which operations, on which streams, in which order) is the job's own: a managed workload fixes it
 * and the trace records it. The times are predicted: from the declared work at the calibrated ceilings
 * ({@link Basis#MODEL}), a copy's or memset's size at the calibrated link or memory rate ({@link Basis#COPY_MODEL}),
 * or, where a kernel declares no work, from its own history ({@link Basis#EMPIRICAL}) or its peers'
 * ({@link Basis#PEERS}).
 *
 * @param nodes device operations in start order
 * @param modelNodes how many nodes carry a model-based prediction ({@link Basis#MODEL} or {@link Basis#COPY_MODEL})
 * @param concurrentPairs pairs of nodes (on different streams, with no dependency between them, both issued while
 *     the other was outstanding) that are predicted to overlap; each pair is {@code {a, b}} node indices, at most
 *     one pair per node and other stream
 */
public record Graph(List<Node> nodes, int modelNodes, List<int[]> concurrentPairs, String hardwareSource) {
  public Graph {
    nodes = List.copyOf(nodes);
    concurrentPairs = List.copyOf(concurrentPairs);
  }

  /** Indices of the nodes in the order they were issued (launch time; start order among equal launch times). */
  public int[] launchOrder() {
    return Planner.launchOrder(nodes);
  }

  /** How many nodes of each kind carry each basis, as {@code counts[kind][basis]} by ordinal. */
  public int[][] basisCounts() {
    int[][] c = new int[Kind.values().length][Basis.values().length];
    for (Node n : nodes) {
      c[n.kind().ordinal()][n.basis().ordinal()]++;
    }
    return c;
  }

  /** Where a prediction comes from; model-based or empirical. */
  public enum Basis {
    /** The roofline over the kernel's declared work at the calibrated ceilings. */
    MODEL("declared work / roofline", true),
    /**
     * A copy's bytes at the calibrated link rate for its direction and host memory (a memset's at memory bandwidth).
     */
    COPY_MODEL("copy model at the calibrated link rate", true),
    /** No declared work: the kernel's own history (executions of the same name). */
    EMPIRICAL("empirical, from its own history", false),
    /**
     * No declared work and too little own history: its peers' history (kernels of the same name family and grid
     * shape, else of the same family, else of the same grid shape).
     */
    PEERS("empirical, from peers", false);

    private final String label;
    private final boolean modelBased;

    Basis(String label, boolean modelBased) {
      this.label = label;
      this.modelBased = modelBased;
    }

    /** What the prediction is based on, in words. */
    public String label() {
      return label;
    }

    /** Whether the bound comes from a model of the hardware (else from observed executions). */
    public boolean modelBased() {
      return modelBased;
    }
  }

  /** What a node is. */
  public enum Kind {
    KERNEL, COPY, MEMSET
  }

  /**
   * One device operation and its prediction.
   *
   * @param index position in {@link Graph#nodes()}
   * @param launchNs host time the operation was issued (its API call's start; its own start when unknown)
   * @param startNs observed start; {@code endNs} observed end
   * @param lowerNs the roofline lower bound at the calibrated clock: no execution can be faster
   * @param upperNs the bound above which the execution is judged too slow
   * @param predictedBytes bytes the operation should move (declared work, or the copy size); -1 when unknown
   * @param measuredBytes bytes it was measured to move (simulated device or profiler); -1 when not measured
   * @param blocks a kernel's grid size in blocks (0 for copies and memsets)
   * @param bound what sets its lower bound
   * @param basis where the prediction comes from
   * @param peers for {@link Basis#PEERS}: which executions it was predicted from (e.g. {@code family 'x_#' grid
   *     132x1x1, 12 executions}); empty otherwise
   */
  public record Node(int index, Kind kind, String name, int device, int stream, long correlationId, long launchNs,
      long startNs, long endNs, double lowerNs, double upperNs, long predictedBytes, long measuredBytes, long blocks,
      Bound bound, Basis basis, String peers) {
    public Node {
      peers = peers == null ? "" : peers;
    }

    /** A node whose prediction names no peers. */
    public Node(int index, Kind kind, String name, int device, int stream, long correlationId, long launchNs,
        long startNs, long endNs, double lowerNs, double upperNs, long predictedBytes, long measuredBytes, long blocks,
        Bound bound, Basis basis) {
      this(index, kind, name, device, stream, correlationId, launchNs, startNs, endNs, lowerNs, upperNs,
          predictedBytes, measuredBytes, blocks, bound, basis, "");
    }

    public long durationNs() {
      return endNs - startNs;
    }

    /** Whether its lower bound is set by bytes at the memory or link bandwidth. */
    public boolean memoryBound() {
      return bound == Bound.MEMORY;
    }
  }

  /** What sets a node's lower bound. */
  public enum Bound {
    /** Flops at the peak rate of the work's precision. */
    COMPUTE,
    /** Bytes at the device-memory bandwidth (or, for a copy, the link's rate). */
    MEMORY,
    /** The chain of dependent memory accesses one thread walks, at memory latency. */
    LATENCY,
    /** No declared work: the operation's own history. */
    UNKNOWN
  }
}
