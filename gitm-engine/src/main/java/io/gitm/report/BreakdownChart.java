package io.gitm.report;

import java.util.List;

/**
 * Holistic Trace Analysis's breakdowns of the shipped configuration's trace, in one window of it
 * (docs/trace-analysis.md defines each figure), and each tied to the ranked causes.
 *
 * @param window the window, in words
 * @param spanNs the window's device span: first operation's start to the last one's end, nanoseconds
 * @param idleNs time no device operation ran
 * @param computeNs time a computation kernel ran
 * @param nonComputeNs the rest of the span
 * @param kernelTypes time by set of kernel types running at once
 * @param commCompOverlap the share of communication time overlapped by computation; null without communication
 * @param streams per stream, idle time by HTA's categories
 * @param queues per stream, the queue length's summary
 * @param annotations device time by innermost user annotation, most first
 * @param ties each breakdown tied to the ranked causes, one sentence each
 * @param criticalPath the critical path of the same window; null when the window holds no event for it
 */
public record BreakdownChart(String window, long spanNs, long idleNs, long computeNs, long nonComputeNs,
    List<Part> kernelTypes, Double commCompOverlap, List<StreamIdle> streams, List<Queue> queues,
    List<Part> annotations, List<String> ties, PathChart criticalPath) {
  public BreakdownChart {
    Check.text(window, "breakdown window");
    Check.nonNegative(spanNs, "breakdown span");
    Check.nonNegative(idleNs, "breakdown idle time");
    Check.nonNegative(computeNs, "breakdown compute time");
    Check.nonNegative(nonComputeNs, "breakdown non-compute time");
    kernelTypes = Check.list(kernelTypes, "breakdown kernel types");
    streams = Check.list(streams, "breakdown streams");
    queues = Check.list(queues, "breakdown queues");
    annotations = Check.list(annotations, "breakdown annotations");
    ties = Check.list(ties, "breakdown ties");
  }

  /**
   * The window's critical path (docs/trace-analysis.md, "The critical path").
   *
   * @param windowNs the window it is the longest path of, nanoseconds
   * @param lengthNs its length, nanoseconds
   * @param hostOperations whether the trace has host operations (without them the host side is API calls alone)
   * @param byKind its length by edge kind ({@code HOST_OP}, {@code LAUNCH}, {@code KERNEL}, {@code SYNC},
   *     {@code IDLE}, {@code DEPENDENCY}), each kind once, in that order
   * @param top the operations, launches and kernels with most time on it, most first (at most 5)
   */
  public record PathChart(long windowNs, long lengthNs, boolean hostOperations, List<Part> byKind, List<PathItem> top) {
    public PathChart {
      Check.nonNegative(windowNs, "critical path window");
      Check.nonNegative(lengthNs, "critical path length");
      byKind = Check.list(byKind, "critical path kinds");
      top = Check.list(top, "critical path items");
    }
  }

  /** Time on the critical path charged to one name of one edge kind, nanoseconds, over {@code count} edges. */
  public record PathItem(String name, String kind, long count, long ns) {
    public PathItem {
      Check.present(name, "critical path item name");
      Check.text(kind, "critical path item kind");
      Check.nonNegative(ns, "critical path item " + name);
    }
  }

  /** A named time, nanoseconds. */
  public record Part(String name, long ns) {
    public Part {
      Check.present(name, "breakdown part name");
      Check.nonNegative(ns, "breakdown part " + name);
    }
  }

  /** One stream's idle time: host wait, kernel wait and other, nanoseconds. */
  public record StreamIdle(String stream, long hostWaitNs, long kernelWaitNs, long otherNs) {
    public StreamIdle {
      Check.text(stream, "breakdown stream");
    }
  }

  /** One stream's queue length (operations launched, not yet started): mean, median and most. */
  public record Queue(String stream, double mean, double median, int max) {
    public Queue {
      Check.text(stream, "queue stream");
      Check.finite(mean, "queue mean");
      Check.finite(median, "queue median");
    }
  }
}
