package io.gitm.workloads.hft;

import io.gitm.device.HostMemoryKind;
import io.gitm.device.MathMode;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.ExecutionConfig.Allocation;
import java.util.Map;

/**
 * The execution configurations hft-lob can honour: its one kernel family's variants, default math, no warm-up, and
 * the combinations of streams, copies, graph capture and allocation its session can run.
 */
final class LobConfigs {
  private LobConfigs() {
  }

  /** Rejects configurations hft-lob cannot honour, with the reason. */
  static void check(ExecutionConfig c) {
    for (Map.Entry<String, String> v : c.kernelVariants().entrySet()) {
      if (!v.getKey().equals(LobKernels.BOOK_FAMILY)) {
        throw new IllegalArgumentException("hft-lob has kernel variants for " + LobKernels.BOOK_FAMILY + " only, got '"
            + v.getKey() + "'");
      }
      if (!LobKernels.BOOK_VARIANTS.contains(v.getValue())) {
        throw new IllegalArgumentException("hft-lob: " + LobKernels.BOOK_FAMILY + " variant '" + v.getValue()
            + "' unknown: use one of " + LobKernels.BOOK_VARIANTS);
      }
    }
    if (c.mathMode() != MathMode.DEFAULT) {
      throw new IllegalArgumentException("hft-lob does no GEMMs: math mode must be DEFAULT, got " + c.mathMode());
    }
    if (c.warmup()) {
      throw new IllegalArgumentException("hft-lob does not offer a warm-up: the gate discards a warm-up block per"
          + " arm, so an untimed batch at open could not change a measured block");
    }
    if (c.latencyStreamPriority() != 0 && (c.streams() < 2 || c.graphCapture())) {
      throw new IllegalArgumentException("hft-lob: a latency stream priority needs streams > 1 without graph capture"
          + " (only there the signal stream runs beside bulk streams), got streams " + c.streams()
          + (c.graphCapture() ? " with graph capture" : ""));
    }
    if (c.l2PersistBytes() > 0 && c.streams() < 2 && !c.copyComputeOverlap() && !c.graphCapture()) {
      throw new IllegalArgumentException("hft-lob: an L2 window is set on the job's own streams, and this"
          + " configuration runs on the legacy default stream (use streams > 1, copy/compute overlap or graph"
          + " capture)");
    }
    if (c.copyComputeOverlap() && !c.asyncCopies()) {
      throw new IllegalArgumentException("hft-lob: copyComputeOverlap needs asyncCopies (synchronous copies cannot"
          + " run on a copy stream)");
    }
    if (c.graphCapture()) {
      if (c.allocation() != Allocation.PREALLOCATED) {
        throw new IllegalArgumentException("hft-lob: graphCapture needs PREALLOCATED allocation (a graph replays"
            + " fixed buffers), got " + c.allocation());
      }
      if (!c.asyncCopies() || c.hostMemory() != HostMemoryKind.PINNED) {
        throw new IllegalArgumentException("hft-lob: graphCapture needs asyncCopies from PINNED host memory (a graph"
            + " holds the batch's copies)");
      }
      if (c.copyComputeOverlap()) {
        throw new IllegalArgumentException("hft-lob: graphCapture and copyComputeOverlap cannot be combined (a graph"
            + " holds one batch's copies and kernels on one stream)");
      }
    }
  }
}
