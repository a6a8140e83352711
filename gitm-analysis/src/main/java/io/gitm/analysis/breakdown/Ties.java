package io.gitm.analysis.breakdown;

import static io.gitm.analysis.attribution.Cause.ALLOCATOR_STALL;
import static io.gitm.analysis.attribution.Cause.CLOCK_DROP;
import static io.gitm.analysis.attribution.Cause.COLD_START;
import static io.gitm.analysis.attribution.Cause.CONTENTION;
import static io.gitm.analysis.attribution.Cause.EXCESS_TRAFFIC;
import static io.gitm.analysis.attribution.Cause.FALSE_SERIALIZATION;
import static io.gitm.analysis.attribution.Cause.HOST_LINK_DEGRADED;
import static io.gitm.analysis.attribution.Cause.LAUNCH_BOUND_HOST;
import static io.gitm.analysis.attribution.Cause.MEMORY_BOUND_BELOW_ROOFLINE;
import static io.gitm.analysis.attribution.Cause.MEMORY_DEGRADED;
import static io.gitm.analysis.attribution.Cause.PAGEABLE_COPIES;
import static io.gitm.analysis.attribution.Cause.POWER_BRAKE;
import static io.gitm.analysis.attribution.Cause.POWER_THROTTLING;
import static io.gitm.analysis.attribution.Cause.SYNCHRONOUS_HOST_CALLS;
import static io.gitm.analysis.attribution.Cause.THERMAL_THROTTLING;

import io.gitm.analysis.attribution.Cause;
import io.gitm.analysis.attribution.Hypothesis;
import io.gitm.analysis.breakdown.Breakdown.QueueLength;
import io.gitm.analysis.breakdown.Breakdown.StreamIdle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Each breakdown tied to the causes the attribution ranked: for a figure, the causes that can produce it, and of
 * those the ones the analysis found, in their rank, with the levers that address the first. Figures of no time are
 * left out.
 */
public final class Ties {
  private Ties() {}

  /**
   * A figure and what explains it.
   *
   * @param figure the figure's name ({@code idle}, {@code host wait}, ...)
   * @param ns its time in the window
   * @param share its share of {@code of}
   * @param of what the share is of: the window's device span, or the streams' time (span × streams)
   * @param candidates the causes that can produce it
   * @param found the ranked causes among them, by rank (1 = the top hypothesis)
   * @param levers the levers that address the first found cause
   * @param summary one line for people
   */
  public record Tie(String figure, long ns, double share, String of, List<Cause> candidates, List<Found> found,
      List<String> levers, String summary) {
    public Tie {
      candidates = List.copyOf(candidates);
      found = List.copyOf(found);
      levers = List.copyOf(levers);
    }
  }

  /** A ranked cause: its rank among the hypotheses and its effect (share of the span). */
  public record Found(int rank, Cause cause, double effect) {}

  /** The levers a tie names, the catalogue's first that address its cause. */
  static final int LEVERS = 3;

  /** The causes that can make each figure large. */
  static final List<Cause> IDLE = List.of(LAUNCH_BOUND_HOST, SYNCHRONOUS_HOST_CALLS, ALLOCATOR_STALL,
      PAGEABLE_COPIES, FALSE_SERIALIZATION, COLD_START);
  static final List<Cause> HOST_WAIT = List.of(LAUNCH_BOUND_HOST, SYNCHRONOUS_HOST_CALLS, ALLOCATOR_STALL,
      PAGEABLE_COPIES, COLD_START);
  static final List<Cause> KERNEL_WAIT = List.of(LAUNCH_BOUND_HOST, COLD_START);
  static final List<Cause> OTHER_IDLE = List.of(FALSE_SERIALIZATION, SYNCHRONOUS_HOST_CALLS, CONTENTION);
  static final List<Cause> NON_COMPUTE = List.of(PAGEABLE_COPIES, HOST_LINK_DEGRADED, SYNCHRONOUS_HOST_CALLS,
      FALSE_SERIALIZATION);
  static final List<Cause> COMPUTE = List.of(MEMORY_BOUND_BELOW_ROOFLINE, EXCESS_TRAFFIC, THERMAL_THROTTLING,
      POWER_THROTTLING, POWER_BRAKE, CLOCK_DROP, MEMORY_DEGRADED, CONTENTION);
  static final List<Cause> EXPOSED_COMMUNICATION = List.of(FALSE_SERIALIZATION);
  static final List<Cause> SHORT_QUEUE = List.of(LAUNCH_BOUND_HOST);

  /**
   * The ties of {@code b}'s figures to {@code ranked} (the hypotheses, best first); {@code levers} names the levers
   * of the catalogue that address a cause (none: an empty list).
   */
  public static List<Tie> of(Breakdown b, List<Hypothesis> ranked, Function<Cause, List<String>> levers) {
    List<Tie> out = new ArrayList<>();
    Breakdown.Temporal t = b.temporal();
    String span = "the window's device span";
    out.add(tie("idle", t.idleNs(), t.idleShare(), span, IDLE, ranked, levers));
    long streamTime = t.spanNs() * b.idle().size();
    String streams = b.idle().size() == 1 ? span : "the streams' time (span × " + b.idle().size() + " streams)";
    long host = 0;
    long kernel = 0;
    long other = 0;
    for (StreamIdle s : b.idle()) {
      host += s.hostWaitNs();
      kernel += s.kernelWaitNs();
      other += s.otherNs();
    }
    out.add(tie("host wait", host, share(host, streamTime), streams, HOST_WAIT, ranked, levers));
    out.add(tie("kernel wait", kernel, share(kernel, streamTime), streams, KERNEL_WAIT, ranked, levers));
    out.add(tie("other idle", other, share(other, streamTime), streams, OTHER_IDLE, ranked, levers));
    out.add(tie("non-compute", t.nonComputeNs(), t.nonComputeShare(), span, NON_COMPUTE, ranked, levers));
    out.add(tie("compute", t.computeNs(), t.computeShare(), span, COMPUTE, ranked, levers));
    if (!Double.isNaN(b.commCompOverlap())) {
      long comm = 0;
      for (Breakdown.TypeTime x : b.kernelTypes()) {
        comm += x.type().contains("COMMUNICATION") ? x.ns() : 0;
      }
      long exposed = Math.round(comm * (1 - b.commCompOverlap()));
      out.add(tie("exposed communication", exposed, share(exposed, t.spanNs()), span, EXPOSED_COMMUNICATION, ranked,
          levers));
    }
    if (!b.queues().isEmpty() && b.queues().stream().allMatch(q -> q.p50() <= 1)) {
      double most = b.queues().stream().mapToDouble(QueueLength::p50).max().orElse(0);
      Tie q = new Tie("queue length", 0, most, "the median operations queued on a stream", SHORT_QUEUE,
          found(SHORT_QUEUE, ranked), List.of(), "");
      out.add(withSummary(q, String.format(Locale.ROOT, "queue length: at most %.1f operation(s) queued per stream"
          + " at the median, the host barely keeps ahead of the device", most), levers));
    }
    out.removeIf(x -> x.ns() == 0 && !x.figure().equals("queue length"));
    return out;
  }

  private static Tie tie(String figure, long ns, double share, String of, List<Cause> candidates,
      List<Hypothesis> ranked, Function<Cause, List<String>> levers) {
    Tie t = new Tie(figure, ns, share, of, candidates, found(candidates, ranked), List.of(), "");
    return withSummary(t, String.format(Locale.ROOT, "%s is %.1f%% of %s (%.3f ms)", figure, 100 * share, of,
        ns / 1e6), levers);
  }

  private static Tie withSummary(Tie t, String head, Function<Cause, List<String>> levers) {
    if (t.found().isEmpty()) {
      List<String> names = t.candidates().stream().map(Cause::label).toList();
      return new Tie(t.figure(), t.ns(), t.share(), t.of(), t.candidates(), t.found(), List.of(), head
          + ": no ranked cause explains it (it could be " + String.join(", ", names) + ")");
    }
    Found f = t.found().getFirst();
    List<String> all = levers.apply(f.cause());
    List<String> ls = all.subList(0, Math.min(LEVERS, all.size()));
    StringBuilder s = new StringBuilder(head).append(": ").append(f.cause().label()).append(String.format(Locale.ROOT,
        " (cause #%d, %.1f%% of the span)", f.rank(), 100 * f.effect()));
    for (Found more : t.found().subList(1, t.found().size())) {
      s.append(String.format(Locale.ROOT, ", then %s (#%d)", more.cause().label(), more.rank()));
    }
    if (!ls.isEmpty()) {
      s.append("; ").append(ls.size() == 1 ? "lever " : "levers ").append(String.join(", ", ls))
          .append(all.size() > ls.size() ? " and " + (all.size() - ls.size()) + " more" : "")
          .append(ls.size() == 1 ? " addresses it" : " address it");
    }
    return new Tie(t.figure(), t.ns(), t.share(), t.of(), t.candidates(), t.found(), ls, s.toString());
  }

  private static List<Found> found(List<Cause> candidates, List<Hypothesis> ranked) {
    List<Found> out = new ArrayList<>();
    for (int i = 0; i < ranked.size(); i++) {
      Hypothesis h = ranked.get(i);
      if (candidates.contains(h.cause())) {
        out.add(new Found(i + 1, h.cause(), h.effect()));
      }
    }
    return out;
  }

  private static double share(long ns, long of) {
    return of == 0 ? 0 : (double) ns / of;
  }
}
