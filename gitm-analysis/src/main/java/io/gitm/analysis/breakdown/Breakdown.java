package io.gitm.analysis.breakdown;

import io.gitm.trace.TraceRecord;
import java.util.List;

/**
 * Holistic Trace Analysis's breakdowns of one window of a trace, from its device operations (kernels, copies and
 * memsets; synchronizations are not operations), in exact nanoseconds. docs/trace-analysis.md defines each figure.
 *
 * @param window the window the figures are of
 * @param ops the device operations in the window
 * @param temporal idle, compute and non-compute time of the window's device span
 * @param kernelTypes time by the set of kernel types running at once, largest first
 * @param commCompOverlap the share of communication time during which computation also ran; NaN without
 *     communication
 * @param idle per stream, the gaps between its operations by HTA's categories
 * @param queues per stream, the queue length (operations launched and not yet started) over the change points
 * @param annotations device operations and their time by the innermost user annotation around their launch, most
 *     time first
 */
public record Breakdown(Window window, int ops, Temporal temporal, List<TypeTime> kernelTypes,
    double commCompOverlap, List<StreamIdle> idle, List<QueueLength> queues, List<AnnotationTime> annotations) {
  /**
   * The gap below which HTA calls idle time kernel wait (the launch overhead of back-to-back kernels): its
   * {@code consecutive_kernel_delay} of 30, which HTA compares with its microsecond timestamps, so 30 µs.
   */
  public static final long KERNEL_WAIT_THRESHOLD_NS = 30_000;

  /** The name of the operations launched inside no user annotation. */
  public static final String NO_ANNOTATION = "(no annotation)";

  public Breakdown {
    kernelTypes = List.copyOf(kernelTypes);
    idle = List.copyOf(idle);
    queues = List.copyOf(queues);
    annotations = List.copyOf(annotations);
  }

  /** The breakdowns of the records of {@code trace} that belong to {@code window}. */
  public static Breakdown of(Window window, List<? extends TraceRecord> trace) {
    return Sweeps.of(window, window.select(trace));
  }

  /** The breakdowns of {@code records}, already selected for {@code window}. */
  public static Breakdown ofSelected(Window window, List<? extends TraceRecord> records) {
    return Sweeps.of(window, records);
  }

  /**
   * The temporal breakdown: from the first operation's start to the last one's end ({@code spanNs}, HTA's kernel
   * time), the time no operation ran ({@code idleNs}), the time a COMPUTATION kernel ran ({@code computeNs}), and
   * the rest, when only copies, memsets, communication or other kernels ran ({@code nonComputeNs}).
   */
  public record Temporal(long spanNs, long idleNs, long computeNs, long nonComputeNs) {
    public double idleShare() {
      return share(idleNs);
    }

    public double computeShare() {
      return share(computeNs);
    }

    public double nonComputeShare() {
      return share(nonComputeNs);
    }

    private double share(long ns) {
      return spanNs == 0 ? 0 : (double) ns / spanNs;
    }
  }

  /** The time during which exactly the kernel types of {@code type} ran, and its share of all typed time. */
  public record TypeTime(String type, long ns, double share) {}

  /**
   * One stream's idle time: the gaps between the end of its operations so far and the next start, by HTA's
   * categories: host wait (the next operation's launch call began after the gap began), kernel wait (otherwise,
   * a gap shorter than {@link #KERNEL_WAIT_THRESHOLD_NS}), other (the rest).
   */
  public record StreamIdle(int device, int stream, long hostWaitNs, long kernelWaitNs, long otherNs, long gaps) {
    public long totalNs() {
      return hostWaitNs + kernelWaitNs + otherNs;
    }
  }

  /**
   * One stream's queue length: after each launch of an operation on it (+1) and each start of one (-1), in time
   * order, the number launched and not yet started; the statistics are over those change points, as HTA's
   * summary has them (the standard deviation with n - 1, quartiles interpolated linearly).
   */
  public record QueueLength(int device, int stream, long samples, double mean, double std, int min, double p25,
      double p50, double p75, int max) {}

  /** The device operations launched inside the annotation {@code name}, how many are kernels, and their time. */
  public record AnnotationTime(String name, long ops, long kernels, long deviceNs, double share) {}
}
