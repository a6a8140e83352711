package io.gitm.analysis.breakdown;

import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.CopyRecord;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.MarkerRecord;
import io.gitm.trace.MemsetRecord;
import io.gitm.trace.SyncRecord;
import io.gitm.trace.TraceRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of a trace that is analysed: a host-time interval {@code [fromNs, toNs)} and the records that belong to
 * it. A host record (API call, marker, tracer overhead) belongs when it starts inside the interval; a device record
 * (kernel, copy, memset, synchronization) belongs when the API call that issued it (the call with the same non-zero
 * correlation id) starts inside, and, when the trace holds no such call, when it starts inside itself; any other
 * record (samples, declared work, traffic) belongs when it starts inside. So work launched in a step is that step's,
 * however late the device ran it.
 *
 * @param spec the window as asked for: {@code steps}, {@code all} or {@code FROM:TO}
 * @param description the window in words, for every output
 * @param fromNs first nanosecond of the interval (in the trace's clock; {@link Long#MIN_VALUE} when open)
 * @param toNs first nanosecond after it ({@link Long#MAX_VALUE} when open)
 * @param steps the ProfilerStep annotations the window holds whole (0 when it is not a step range)
 */
public record Window(String spec, String description, long fromNs, long toNs, int steps) {
  /** The annotation PyTorch's profiler records for each step: {@code ProfilerStep#N}. */
  static final Pattern STEP = Pattern.compile("ProfilerStep\\s*#\\s*(\\d+)");
  private static final Pattern TIME = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s)");
  private static final Pattern NUMBER = Pattern.compile("\\d{1,9}");

  public Window {
    if (fromNs >= toNs) {
      throw new IllegalArgumentException("a window must end after it starts");
    }
  }

  /** Whether the window holds the whole trace. */
  public boolean whole() {
    return fromNs == Long.MIN_VALUE && toNs == Long.MAX_VALUE;
  }

  /**
   * The window {@code spec} names in {@code trace}; null or empty is the default: {@code steps} where the trace has
   * two or more ProfilerStep annotations, else {@code all}. {@code steps}: every step but the last, which the
   * profiler usually stops inside (the interval from the trace's start to the last step's start, as Holistic Trace
   * Analysis takes it). {@code FROM:TO} in step numbers ({@code 2:4}: steps 2 to 4, from the start of step 2 to the
   * start of the step after 4, or the end of 4 when it is the last) or in times from the trace's first record with a
   * unit ({@code 1.5ms:20ms}; ns, us or µs, ms, s); either side may be left out for the trace's start or end.
   *
   * @throws IllegalArgumentException naming what is wrong with {@code spec}
   */
  public static Window of(String spec, List<? extends TraceRecord> trace) {
    String s = spec == null ? "" : spec.strip();
    Steps steps = Steps.of(trace);
    if (s.isEmpty()) {
      return steps.count() >= 2 ? steps(steps, "steps (the default: the trace has ProfilerStep annotations)")
          : all("all (the default: " + (steps.count() == 0 ? "the trace has no ProfilerStep annotations)"
              : "the trace has only one ProfilerStep annotation)"));
    }
    if (s.equals("all")) {
      return all("all");
    }
    if (s.equals("steps")) {
      if (steps.count() < 2) {
        throw new IllegalArgumentException("--window steps: the trace has " + (steps.count() == 0
            ? "no ProfilerStep annotations" : "only one ProfilerStep annotation") + "; use all or FROM:TO times");
      }
      return steps(steps, "steps");
    }
    int colon = s.indexOf(':');
    if (colon < 0 || s.indexOf(':', colon + 1) >= 0) {
      throw new IllegalArgumentException("--window " + s + ": expected steps, all or FROM:TO");
    }
    String from = s.substring(0, colon).strip();
    String to = s.substring(colon + 1).strip();
    if (from.isEmpty() && to.isEmpty()) {
      return all(s);
    }
    boolean numbers = (from.isEmpty() || NUMBER.matcher(from).matches()) && (to.isEmpty()
        || NUMBER.matcher(to).matches());
    return numbers ? stepRange(s, from, to, steps) : timeRange(s, from, to, trace);
  }

  /** The records of {@code trace} that belong to this window, in their order (the list itself when whole). */
  public List<TraceRecord> select(List<? extends TraceRecord> trace) {
    if (whole()) {
      return List.copyOf(trace);
    }
    long[] corr = launches(trace);
    List<TraceRecord> out = new ArrayList<>();
    for (TraceRecord r : trace) {
      long at = switch (r) {
        case KernelRecord k -> launchOr(corr, k.correlationId(), k.startNs());
        case CopyRecord c -> launchOr(corr, c.correlationId(), c.startNs());
        case MemsetRecord m -> launchOr(corr, m.correlationId(), m.startNs());
        case SyncRecord y -> launchOr(corr, y.correlationId(), y.startNs());
        default -> r.startNs();
      };
      if (at >= fromNs && at < toNs) {
        out.add(r);
      }
    }
    return out;
  }

  /** The API calls' correlation ids and starts, sorted by id, interleaved {@code [id0, start0, id1, start1, ...]}. */
  private static long[] launches(List<? extends TraceRecord> trace) {
    int n = 0;
    for (TraceRecord r : trace) {
      if (r instanceof ApiCallRecord a && a.correlationId() != 0) {
        n++;
      }
    }
    long[] ids = new long[n];
    long[] starts = new long[n];
    int i = 0;
    for (TraceRecord r : trace) {
      if (r instanceof ApiCallRecord a && a.correlationId() != 0) {
        ids[i] = a.correlationId();
        starts[i++] = a.startNs();
      }
    }
    int[] order = Sorts.byKey(ids, n);
    long[] out = new long[2 * n];
    for (int k = 0; k < n; k++) {
      out[2 * k] = ids[order[k]];
      out[2 * k + 1] = starts[order[k]];
    }
    return out;
  }

  /** The start of the first call with correlation id {@code id} in {@code sorted} (see launches), else {@code own}. */
  static long launchOr(long[] sorted, long id, long own) {
    if (id == 0) {
      return own;
    }
    int lo = 0;
    int hi = sorted.length / 2 - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long v = sorted[2 * mid];
      if (v < id) {
        lo = mid + 1;
      } else if (v > id) {
        hi = mid - 1;
      } else {
        while (mid > 0 && sorted[2 * (mid - 1)] == id) {
          mid--;
        }
        return sorted[2 * mid + 1];
      }
    }
    return own;
  }

  private static Window all(String description) {
    return new Window("all", description + ": the whole trace", Long.MIN_VALUE, Long.MAX_VALUE, 0);
  }

  private static Window steps(Steps s, String how) {
    int last = s.count() - 1;
    return new Window("steps", how + ": ProfilerStep#" + s.number(0) + " to #" + s.number(last - 1) + ", "
        + last + " of " + s.count() + " steps, the last (usually partial) step left out", Long.MIN_VALUE,
        s.start(last), last);
  }

  private static Window stepRange(String spec, String from, String to, Steps s) {
    if (s.count() == 0) {
      throw new IllegalArgumentException("--window " + spec + ": the trace has no ProfilerStep annotations to"
          + " number; give times with a unit (e.g. 0ms:20ms)");
    }
    int first = from.isEmpty() ? 0 : s.index(Integer.parseInt(from), spec);
    int last = to.isEmpty() ? s.count() - 1 : s.index(Integer.parseInt(to), spec);
    if (last < first) {
      throw new IllegalArgumentException("--window " + spec + ": step " + to + " comes before step " + from);
    }
    long fromNs = from.isEmpty() ? Long.MIN_VALUE : s.start(first);
    long toNs = to.isEmpty() ? Long.MAX_VALUE : last + 1 < s.count() ? s.start(last + 1) : s.end(last) + 1;
    return new Window(spec, spec + ": ProfilerStep#" + s.number(first) + " to #" + s.number(last) + ", "
        + (last - first + 1) + " of " + s.count() + " steps", fromNs, toNs, last - first + 1);
  }

  private static Window timeRange(String spec, String from, String to, List<? extends TraceRecord> trace) {
    long origin = Long.MAX_VALUE;
    for (TraceRecord r : trace) {
      origin = Math.min(origin, r.startNs());
    }
    if (origin == Long.MAX_VALUE) {
      origin = 0;
    }
    long fromNs = from.isEmpty() ? Long.MIN_VALUE : origin + time(from, spec);
    long toNs = to.isEmpty() ? Long.MAX_VALUE : origin + time(to, spec);
    if (fromNs >= toNs) {
      throw new IllegalArgumentException("--window " + spec + ": the window ends before it starts");
    }
    return new Window(spec, spec + ": from " + (from.isEmpty() ? "the trace's start" : from) + " to "
        + (to.isEmpty() ? "the trace's end" : to) + " after the trace's first record", fromNs, toNs, 0);
  }

  /** A time with its unit, in nanoseconds (fractions of a nanosecond rounded down). */
  private static long time(String t, String spec) {
    Matcher m = TIME.matcher(t.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("--window " + spec + ": '" + t + "' is neither a step number nor a time"
          + " with a unit (ns, us, µs, ms, s)");
    }
    long scale = switch (m.group(2)) {
      case "ns" -> 1;
      case "us", "µs" -> 1_000;
      case "ms" -> 1_000_000;
      default -> 1_000_000_000;
    };
    double v = Double.parseDouble(m.group(1)) * scale;
    if (v > 1e18) {
      throw new IllegalArgumentException("--window " + spec + ": '" + t + "' is too large");
    }
    return (long) Math.floor(v);
  }

  /**
   * The trace's ProfilerStep annotations by start, one per step number (the earliest where a number repeats).
   */
  record Steps(int[] numbers, long[] starts, long[] ends) {
    static Steps of(List<? extends TraceRecord> trace) {
      List<MarkerRecord> found = new ArrayList<>();
      for (TraceRecord r : trace) {
        if (r instanceof MarkerRecord m && m.name().startsWith("ProfilerStep") && STEP.matcher(m.name()).matches()) {
          found.add(m);
        }
      }
      found.sort((a, b) -> Long.compare(a.startNs(), b.startNs()));
      int[] numbers = new int[found.size()];
      long[] starts = new long[found.size()];
      long[] ends = new long[found.size()];
      int n = 0;
      for (MarkerRecord m : found) {
        Matcher x = STEP.matcher(m.name());
        x.matches();
        int number;
        try {
          number = Integer.parseInt(x.group(1));
        } catch (NumberFormatException e) {
          continue;
        }
        boolean seen = false;
        for (int i = 0; i < n && !seen; i++) {
          seen = numbers[i] == number;
        }
        if (!seen) {
          numbers[n] = number;
          starts[n] = m.startNs();
          ends[n++] = m.endNs();
        }
      }
      return new Steps(Arrays.copyOf(numbers, n), Arrays.copyOf(starts, n), Arrays.copyOf(ends, n));
    }

    int count() {
      return numbers.length;
    }

    int number(int i) {
      return numbers[i];
    }

    long start(int i) {
      return starts[i];
    }

    long end(int i) {
      return ends[i];
    }

    int index(int number, String spec) {
      for (int i = 0; i < numbers.length; i++) {
        if (numbers[i] == number) {
          return i;
        }
      }
      throw new IllegalArgumentException("--window " + spec + ": the trace has no ProfilerStep#" + number
          + " (its steps are #" + numbers[0] + " to #" + numbers[numbers.length - 1] + ")");
    }
  }
}
