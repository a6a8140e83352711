package io.gitm.tracer;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the events the importer does not take are, by the key it counts them under ({@code cat C} for a complete
 * event, {@code ph P} otherwise), and why a trace without device operations has none.
 */
final class KinetoCategories {
  /** Categories of accelerators other than CUDA GPUs, as Kineto and its plug-ins name them. */
  private static final Set<String> OTHER_ACCELERATORS = Set.of("mtia_runtime", "mtia_ccp_events", "mtia_insight",
      "mtia_counters", "hpu_op", "xpu_runtime", "xpu_driver", "privateuse1_runtime", "privateuse1_driver",
      "glow_runtime", "mps", "rocm_runtime", "hip_runtime");

  private static final Map<String, String> WHY = Map.ofEntries(
      Map.entry("cat cpu_op", "CPU operators"),
      Map.entry("cat operator", "CPU operators (PyTorch 1.8's spelling)"),
      Map.entry("cat python_function", "Python call stack (with_stack)"),
      Map.entry("cat gpu_user_annotation", "user annotations drawn on the GPU timeline; the host-side annotation is"
          + " imported as a marker"),
      Map.entry("cat cpu_instant_event", "host instant events (memory events of profile_memory)"),
      Map.entry("cat trace", "the profiler's own span"),
      Map.entry("cat cuda_profiler_range", "CUPTI profiler ranges: measured ranges, not device operations"),
      Map.entry("cat external_correlation", "external correlation ids"),
      Map.entry("cat null", "events without a category: the legacy autograd profiler's format, which a PyTorch"
          + " built without Kineto writes"),
      Map.entry("ph s", "flow starts (ac2g: launch to kernel; fwdbwd: forward to backward op); correlation ids"
          + " carry the launch link"),
      Map.entry("ph f", "flow ends (ac2g, fwdbwd)"),
      Map.entry("ph t", "flow steps"),
      Map.entry("ph M", "metadata: process and thread names"),
      Map.entry("ph i", "instant events"),
      Map.entry("ph I", "instant events"),
      Map.entry("ph C", "counters"),
      Map.entry("ph b", "async events"),
      Map.entry("ph e", "async events"),
      Map.entry("ph n", "async events"));

  private KinetoCategories() {}

  /** What the events counted under {@code key} are, for a note: never empty. */
  static String why(String key) {
    String k = key.startsWith("cat ") ? "cat " + key.substring(4).toLowerCase(Locale.ROOT) : key;
    String w = WHY.get(k);
    if (w != null) {
      return w;
    }
    if (otherAccelerator(key)) {
      return "another accelerator's events, which gitm does not model";
    }
    return key.startsWith("cat ") ? "a category the importer does not know" : "a phase the importer does not take";
  }

  private static boolean otherAccelerator(String key) {
    return key.startsWith("cat ") && OTHER_ACCELERATORS.contains(key.substring(4).toLowerCase(Locale.ROOT));
  }

  /**
   * Why a trace whose events are counted in {@code seen} (by key) holds no device operation: one clause per kind of
   * reason found, most telling first.
   */
  static String noDeviceOperations(Map<String, Long> seen, long events) {
    if (events == 0) {
      return "the trace has no events";
    }
    List<String> why = new ArrayList<>();
    if (seen.containsKey("cat cuda_profiler_range")) {
      why.add("its device events are CUPTI profiler ranges (cuda_profiler_range), which are not operations");
    }
    List<String> others = seen.keySet().stream().filter(KinetoCategories::otherAccelerator).toList();
    if (!others.isEmpty()) {
      why.add("its device events are another accelerator's (" + String.join(", ", others) + "), which gitm does not"
          + " model");
    }
    if (seen.containsKey("cat null")) {
      why.add("its events have no category: the legacy autograd profiler's format (a PyTorch built without Kineto),"
          + " which records no CUDA activity");
    }
    boolean device = seen.keySet().stream().anyMatch(k -> k.matches("(?i)cat (kernel|gpu_memcpy|memcpy|gpu_memset"
        + "|memset)"));
    if (device) {
      why.add("its kernel, memcpy and memset events have no \"ts\"");
    }
    if (why.isEmpty()) {
      why.add("the profile recorded no CUDA device activity (a CPU-only profile, or ProfilerActivity.CUDA was not"
          + " among the activities)");
    }
    return String.join("; ", why);
  }
}
