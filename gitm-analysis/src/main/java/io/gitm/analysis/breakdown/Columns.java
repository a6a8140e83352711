package io.gitm.analysis.breakdown;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.TraceRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A trace's device operations, API calls and markers as primitive columns, each operation joined to the API call
 * that launched it (the first call with its non-zero correlation id).
 */
final class Columns {
  /**
   * The calls HTA counts as enqueueing one operation on a stream, for the queue length: kernel launches, async
   * copies and memsets (not graph launches, which enqueue many, nor the synchronous calls).
   */
  private static final Set<String> QUEUEING = Set.of("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
      "cuLaunchKernelEx", "cudaMemcpyAsync", "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel",
      "hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream");
  private static final Pattern SUFFIX = Pattern.compile("(_ptsz|_ptds|_v\\d+)+$");

  final int n;
  final long[] start;
  final long[] end;
  final int[] device;
  final int[] stream;
  final byte[] type;
  final boolean[] kernel;
  /** The index of the operation's launch call in the api columns, -1 when the trace has none. */
  final int[] launch;

  final long[] apiStart;
  final long[] apiThread;
  final boolean[] queueable;

  final int markers;
  final long[] markStart;
  final long[] markEnd;
  final long[] markThread;
  final String[] markName;

  private Columns(int ops, int apis, int marks) {
    n = ops;
    start = new long[ops];
    end = new long[ops];
    device = new int[ops];
    stream = new int[ops];
    type = new byte[ops];
    kernel = new boolean[ops];
    launch = new int[ops];
    apiStart = new long[apis];
    apiThread = new long[apis];
    queueable = new boolean[apis];
    markers = marks;
    markStart = new long[marks];
    markEnd = new long[marks];
    markThread = new long[marks];
    markName = new String[marks];
  }

  static Columns of(List<? extends TraceRecord> records) {
    int ops = 0;
    int apis = 0;
    int marks = 0;
    for (TraceRecord r : records) {
      switch (r) {
        case KernelRecord k -> ops++;
        case CopyRecord k -> ops++;
        case MemsetRecord k -> ops++;
        case ApiCallRecord a -> apis++;
        case MarkerRecord m -> marks++;
        default -> { }
      }
    }
    Columns c = new Columns(ops, apis, marks);
    long[] opCorr = new long[ops];
    long[] apiCorr = new long[apis];
    c.fill(records, opCorr, apiCorr);
    c.join(opCorr, apiCorr);
    return c;
  }

  private void fill(List<? extends TraceRecord> records, long[] opCorr, long[] apiCorr) {
    Map<String, Byte> types = new HashMap<>();
    int o = 0;
    int a = 0;
    int m = 0;
    for (TraceRecord r : records) {
      switch (r) {
        case KernelRecord k -> {
          byte t = types.computeIfAbsent(k.name(), x -> (byte) KernelType.ofKernel(x).ordinal());
          op(o++, k.startNs(), k.endNs(), k.device(), k.stream(), t, true, k.correlationId(), opCorr);
        }
        case CopyRecord k -> op(o++, k.startNs(), k.endNs(), k.device(), k.stream(),
            (byte) KernelType.MEMORY.ordinal(), false, k.correlationId(), opCorr);
        case MemsetRecord k -> op(o++, k.startNs(), k.endNs(), k.device(), k.stream(),
            (byte) KernelType.MEMORY.ordinal(), false, k.correlationId(), opCorr);
        case ApiCallRecord x -> {
          apiStart[a] = x.startNs();
          apiThread[a] = x.threadId();
          queueable[a] = QUEUEING.contains(SUFFIX.matcher(x.name().strip()).replaceFirst(""));
          apiCorr[a++] = x.correlationId();
        }
        case MarkerRecord x -> {
          markStart[m] = x.startNs();
          markEnd[m] = x.endNs();
          markThread[m] = x.threadId();
          markName[m++] = x.name();
        }
        default -> { }
      }
    }
  }

  private void op(int i, long s, long e, int dev, int str, byte t, boolean k, long corr, long[] opCorr) {
    start[i] = s;
    end[i] = e;
    device[i] = dev;
    stream[i] = str;
    type[i] = t;
    kernel[i] = k;
    opCorr[i] = corr;
  }

  /** Joins each operation to its launch call: both sides sorted by correlation id, then merged. */
  private void join(long[] opCorr, long[] apiCorr) {
    int apis = apiCorr.length;
    int[] byApi = Sorts.byKey(apiCorr, apis);
    int[] byOp = Sorts.byKey(opCorr, n);
    int j = 0;
    for (int i : byOp) {
      long id = opCorr[i];
      while (j < apis && apiCorr[byApi[j]] < id) {
        j++;
      }
      launch[i] = id != 0 && j < apis && apiCorr[byApi[j]] == id ? byApi[j] : -1;
    }
  }

  /** The stream of operation {@code i} as one key: its device in the high half, its stream in the low. */
  long streamKey(int i) {
    return ((long) device[i] << 32) | (stream[i] & 0xffffffffL);
  }

  /** When operation {@code i} was launched, or its own start when the trace has no launch call for it. */
  long launchTime(int i) {
    return launch[i] < 0 ? start[i] : apiStart[launch[i]];
  }
}
