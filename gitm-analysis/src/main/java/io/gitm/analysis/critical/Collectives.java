package io.gitm.analysis.critical;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.ApiKind;
import io.gitm.trace.CollectiveRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The collective communications of a trace (docs/trace-analysis.md, "NCCL collectives"), grouped by collective and
 * process group. One call is a {@code record_param_comms} host operation, or an NCCL kernel whose metadata no host
 * operation of the trace carries; its kernel is the NCCL kernel with the host operation's External id, else the one
 * launched from within the host operation on its thread (by correlation id).
 */
public final class Collectives {
  private Collectives() {}

  /** A process group. */
  public record Group(String name, String description, String ranks, int size) {}

  /**
   * All calls of one collective on one process group.
   *
   * @param inElements elements sent, summed over the calls (-1 when a call did not say)
   * @param inBytes {@code inElements} times the element size of {@code dtype}, -1 when either is unknown
   * @param hostNs time in the host operations that issued the calls
   * @param kernel the name of the NCCL kernel the calls ran as (the most frequent one), empty when none ran
   * @param kernels calls that ran a kernel
   * @param kernelNs time in those kernels
   */
  public record Collective(String name, Group group, String dtype, long count, long inElements, long outElements,
      long inBytes, long outBytes, long hostNs, String kernel, long kernels, long kernelNs) {}

  /** The collectives of {@code records}, most kernel time first, then most calls. */
  public static List<Collective> of(List<TraceRecord> records) {
    List<CollectiveRecord> host = new ArrayList<>();
    Map<Long, CollectiveRecord> onDevice = new LinkedHashMap<>();
    Map<Long, KernelRecord> ncclKernels = new HashMap<>();
    List<ApiCallRecord> launches = new ArrayList<>();
    for (TraceRecord r : records) {
      switch (r) {
        case CollectiveRecord c when c.onDevice() -> onDevice.put(c.correlationId(), c);
        case CollectiveRecord c -> host.add(c);
        case KernelRecord k when isNccl(k.name()) -> ncclKernels.put(k.correlationId(), k);
        case ApiCallRecord a when a.kind() == ApiKind.LAUNCH -> launches.add(a);
        default -> {
          // not part of a collective
        }
      }
    }
    Map<Long, Long> kernelOfExternal = new HashMap<>();
    onDevice.forEach((corr, c) -> kernelOfExternal.putIfAbsent(c.externalId(), corr));
    launches.removeIf(a -> !ncclKernels.containsKey(a.correlationId()));
    launches.sort(Comparator.comparingLong(ApiCallRecord::threadId).thenComparingLong(ApiCallRecord::startNs));
    Map<String, Acc> by = new LinkedHashMap<>();
    Set<Long> used = new HashSet<>();
    for (CollectiveRecord c : host) {
      Long corr = c.externalId() != 0 ? kernelOfExternal.get(c.externalId()) : null;
      if (corr == null) {
        corr = launchedWithin(launches, c);
      }
      KernelRecord k = corr == null ? null : ncclKernels.get(corr);
      if (k != null) {
        used.add(k.correlationId());
      }
      acc(by, c).add(c, c.durationNs(), k);
    }
    onDevice.forEach((corr, c) -> {
      if (!used.contains(corr)) {
        acc(by, c).add(c, 0, ncclKernels.get(corr));
      }
    });
    List<Collective> out = new ArrayList<>();
    by.values().forEach(a -> out.add(a.collective()));
    out.sort(Comparator.comparingLong(Collective::kernelNs).reversed()
        .thenComparing(Comparator.comparingLong(Collective::count).reversed()).thenComparing(Collective::name));
    return List.copyOf(out);
  }

  /** Whether a kernel is NCCL's ({@code ncclDevKernel_*}, {@code ncclKernel_*}). */
  public static boolean isNccl(String kernel) {
    return kernel.startsWith("ncclDevKernel") || kernel.startsWith("ncclKernel");
  }

  /** Bytes per element of a PyTorch dtype name ({@code Float}, {@code BFloat16}), -1 when unknown. */
  public static int elementBytes(String dtype) {
    String d = dtype.toLowerCase(Locale.ROOT);
    if (d.startsWith("float8") || d.startsWith("float4")) {
      return 1;
    }
    return switch (d) {
      case "byte", "char", "bool", "uint8", "int8", "qint8", "quint8" -> 1;
      case "half", "bfloat16", "short", "int16", "uint16", "float16" -> 2;
      case "float", "int", "int32", "uint32", "float32", "complexhalf" -> 4;
      case "double", "long", "int64", "uint64", "float64", "complexfloat" -> 8;
      case "complexdouble" -> 16;
      default -> -1;
    };
  }

  /** The correlation id of the NCCL launch made on {@code c}'s thread within its time, null when none. */
  private static @Nullable Long launchedWithin(List<ApiCallRecord> launches, CollectiveRecord c) {
    int lo = 0;
    int hi = launches.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      ApiCallRecord a = launches.get(mid);
      if (a.threadId() < c.threadId() || (a.threadId() == c.threadId() && a.startNs() < c.startNs())) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo < launches.size()) {
      ApiCallRecord a = launches.get(lo);
      if (a.threadId() == c.threadId() && a.endNs() <= c.endNs()) {
        return a.correlationId();
      }
    }
    return null;
  }

  private static Acc acc(Map<String, Acc> by, CollectiveRecord c) {
    String key = String.join("\u0000", c.collective(), c.groupName(), c.groupDescription(), c.groupRanks(),
        Integer.toString(c.groupSize()), c.dtype());
    return by.computeIfAbsent(key, x -> new Acc(c));
  }

  /** The sums of one collective's calls. */
  private static final class Acc {
    final CollectiveRecord first;
    long count;
    long in;
    long out;
    long hostNs;
    long kernels;
    long kernelNs;
    final Map<String, Long> kernelNames = new HashMap<>();

    Acc(CollectiveRecord first) {
      this.first = first;
    }

    void add(CollectiveRecord c, long host, @Nullable KernelRecord k) {
      count++;
      in = in < 0 || c.inElements() < 0 ? -1 : in + c.inElements();
      out = out < 0 || c.outElements() < 0 ? -1 : out + c.outElements();
      hostNs += host;
      if (k != null) {
        kernels++;
        kernelNs += k.durationNs();
        kernelNames.merge(k.name(), 1L, Long::sum);
      }
    }

    Collective collective() {
      int size = elementBytes(first.dtype());
      String kernel = "";
      long most = 0;
      for (Map.Entry<String, Long> e : new TreeMap<>(kernelNames).entrySet()) {
        if (e.getValue() > most) {
          kernel = e.getKey();
          most = e.getValue();
        }
      }
      Group g = new Group(first.groupName(), first.groupDescription(), first.groupRanks(), first.groupSize());
      return new Collective(first.collective(), g, first.dtype(), count, in, out, size < 0 || in < 0 ? -1 : in * size,
          size < 0 || out < 0 ? -1 : out * size, hostNs, kernel, kernels, kernelNs);
    }
  }
}
