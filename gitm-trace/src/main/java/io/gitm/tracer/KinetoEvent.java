package io.gitm.tracer;

import java.util.Locale;
import java.util.regex.Pattern;

/** One trace event, with the fields the importer reads; reused from event to event. */
final class KinetoEvent {
  private static final Pattern PROFILER_STEP = Pattern.compile("ProfilerStep#\\d+");

  String ph;
  String cat;
  String name;
  boolean hasTs;
  long tsNs;
  boolean hasDur;
  long durNs;
  boolean hasPid;
  long pid;
  boolean hasTid;
  long tid;
  boolean hasDevice;
  long device;
  boolean hasInDevice;
  long inDevice;
  boolean hasStream;
  long stream;
  boolean hasCorrelation;
  long correlation;
  boolean hasRegisters;
  long registers;
  boolean hasShared;
  long shared;
  boolean hasBytes;
  long bytes;
  int[] grid;
  int[] block;
  String syncKind;
  boolean hasExternalId;
  long externalId;
  /** Collective metadata ({@code record_param_comms} and NCCL kernels), null or -1 when absent. */
  String collective;
  String dtype;
  String groupName;
  String groupDescription;
  String groupRanks;
  long inElements;
  long outElements;
  long groupSize;
  /** What {@link #type()} returns, computed once per event by {@link #classify()}. */
  String type;
  int line;
  int column;

  void reset() {
    ph = cat = name = syncKind = null;
    collective = dtype = groupName = groupDescription = groupRanks = null;
    inElements = outElements = groupSize = -1;
    hasExternalId = false;
    hasTs = hasDur = hasPid = hasTid = hasDevice = hasInDevice = hasStream = hasCorrelation = false;
    hasRegisters = hasShared = hasBytes = false;
    grid = block = null;
    type = null;
  }

  /** The kind of record this event becomes, or null when it is not imported. */
  String type() {
    return type;
  }

  void classify() {
    type = typeOf(ph, cat, name);
  }

  private static String typeOf(String ph, String cat, String name) {
    if (!"X".equals(ph) || cat == null) {
      return null;
    }
    return switch (cat.toLowerCase(Locale.ROOT)) {
      // PyTorch 1.8 wrote every host-side range as an Operator, the profiler's steps among them
      case "operator" -> name != null && PROFILER_STEP.matcher(name).matches() ? "marker" : null;
      case "kernel" -> "kernel";
      case "gpu_memcpy", "memcpy" -> "copy";
      case "gpu_memset", "memset" -> "memset";
      case "cuda_runtime", "cuda_driver", "runtime", "driver" -> "api";
      case "cuda_sync" -> "sync";
      case "user_annotation" -> "marker";
      case "cpu_op" -> "hostop";
      case "overhead" -> "overhead";
      default -> null;
    };
  }

  /** Whether the event becomes a device operation: a kernel, copy or memset. */
  boolean deviceOperation() {
    String t = type();
    return "kernel".equals(t) || "copy".equals(t) || "memset".equals(t);
  }

  boolean onDevice() {
    String t = type();
    return "kernel".equals(t) || "copy".equals(t) || "memset".equals(t) || "sync".equals(t);
  }

  /** The device of a device-side event: args.device, else args.inDevice (peer copies), else pid. */
  Long deviceId() {
    if (hasDevice) {
      return device;
    }
    if (hasInDevice) {
      return inDevice;
    }
    return hasPid ? pid : null;
  }
}
