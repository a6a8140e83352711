package io.gitm.analysis.monitor;

import java.util.List;

/**
 * A breach of one of the three invariants ({@code docs/invariants.md}) by one subject (a kernel name, a copy kind, a
 * stream pair), with its evidence.
 *
 * @param observed the typical observed value (median duration in ns, bytes, overlapped pairs)
 * @param bound the bound it breaks, in the same unit
 * @param howFar median ratio of observed to bound over the breaching executions
 * @param count how many executions breach it; {@code of} how many were judged
 * @param excessNs time spent beyond the bound by the breaching executions (for concurrency: the overlap lost)
 * @param examples up to five record references ({@code kernel corr=… at …ns}) to find the executions in the trace
 * @param basis what the bound rests on: for kernel time the prediction's basis ({@code Graph.Basis#label}, e.g.
 *     "declared work / roofline" or "empirical, from peers: …"), else the evidence the invariant compares
 */
public record Violation(Invariant invariant, String subject, double observed, double bound, double howFar, long count,
    long of, double excessNs, List<String> examples, String basis) {
  public Violation {
    examples = List.copyOf(examples);
    basis = basis == null ? "" : basis;
  }

  /** The three invariants. */
  public enum Invariant {
    KERNEL_TIME("kernel time within its roofline bounds"),
    MEMORY_TRAFFIC("bytes moved as predicted"),
    STREAM_CONCURRENCY("predicted-concurrent work overlaps");

    private final String description;

    Invariant(String description) {
      this.description = description;
    }

    public String description() {
      return description;
    }
  }

  /** How often, as a fraction of the judged executions. */
  public double rate() {
    return of == 0 ? 0 : (double) count / of;
  }
}
