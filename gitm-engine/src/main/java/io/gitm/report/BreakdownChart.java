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
 */
public record BreakdownChart(String window, long spanNs, long idleNs, long computeNs, long nonComputeNs,
    List<Part> kernelTypes, Double commCompOverlap, List<StreamIdle> streams, List<Queue> queues,
    List<Part> annotations, List<String> ties) {
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
