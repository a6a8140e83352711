package io.gitm.cli;

import io.gitm.analysis.breakdown.Window;
import io.gitm.analysis.critical.Collectives;
import io.gitm.analysis.critical.CriticalPath;
import io.gitm.analysis.critical.Edge;
import io.gitm.trace.HostOpRecord;
import io.gitm.trace.TraceRecord;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The host side of an analyzed trace, as {@code gitm analyze} shows it: the critical path of the analysed window and
 * the collective communications issued in it (docs/trace-analysis.md, "The critical path" and "NCCL collectives").
 *
 * @param window how the window was chosen ({@code steps: ...} or {@code all})
 * @param hostOps whether the trace has host operations (without them the path's host side is API calls only)
 */
record HostSide(String window, CriticalPath.Result path, List<Collectives.Collective> collectives, boolean hostOps) {
  /**
   * The host side of {@code records} in {@code window} (the one every figure of the analysis is of): the critical
   * path over the window's interval, clipped to the trace, and the collectives of {@code selected}, its records.
   */
  static HostSide of(List<TraceRecord> records, Window window, List<TraceRecord> selected) {
    boolean hostOps = records.stream().anyMatch(r -> r instanceof HostOpRecord);
    CriticalPath.Result path = CriticalPath.clipped(records, window.fromNs(), window.toNs());
    return new HostSide(window.description(), path, Collectives.of(selected), hostOps);
  }

  /** The {@code --json} form: {@code criticalPath} and {@code collectives}, each with its window. */
  void put(Map<String, Object> m) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("window", window);
    p.put("fromNs", path.fromNs());
    p.put("toNs", path.toNs());
    p.put("startNs", path.startNs());
    p.put("endNs", path.endNs());
    p.put("lengthNs", path.lengthNs());
    Map<String, Object> kinds = new LinkedHashMap<>();
    for (Edge k : Edge.values()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("ns", path.byKind().get(k));
      x.put("share", path.share(k));
      x.put("edges", path.edgesByKind().get(k));
      kinds.put(k.name(), x);
    }
    p.put("byKind", kinds);
    p.put("top", path.top());
    p.put("hostOperations", hostOps);
    m.put("criticalPath", p);
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("window", window);
    c.put("byCollective", collectives);
    m.put("collectives", c);
  }

  void print(PrintWriter out) {
    if (path.lengthNs() == 0 && collectives.isEmpty()) {
      return;
    }
    out.printf(Locale.ROOT, "critical  path %.3f ms over the window of %.3f ms [window %s]%s%n", path.lengthNs() / 1e6,
        (path.toNs() - path.fromNs()) / 1e6, window, hostOps ? "" : " (no host operations: API calls only)");
    List<String> shares = new ArrayList<>();
    for (Edge k : List.of(Edge.HOST_OP, Edge.LAUNCH, Edge.KERNEL, Edge.SYNC, Edge.IDLE)) {
      shares.add(String.format(Locale.ROOT, "%s %.1f%%", k.name().toLowerCase(Locale.ROOT).replace('_', ' '),
          100 * path.share(k)));
    }
    out.println("  shares  " + String.join(", ", shares));
    for (CriticalPath.Item i : path.top().subList(0, Math.min(5, path.top().size()))) {
      out.printf(Locale.ROOT, "  on path %-8s %.3f ms (%d×) %s%n", i.kind().name().toLowerCase(Locale.ROOT),
          i.ns() / 1e6, i.count(), Terminal.safe(shorten(i.name())));
    }
    if (!collectives.isEmpty()) {
      out.println("nccl      collectives issued in the window [window " + window + "]");
    }
    for (Collectives.Collective c : collectives) {
      Collectives.Group g = c.group();
      out.printf(Locale.ROOT, "nccl      %s ×%d on group %s (%s, ranks %s, size %d), %s: %s elements in, %s out%s;"
          + " host %.3f ms, %s%n", Terminal.safe(c.name()), c.count(), Terminal.safe(g.name()),
          Terminal.safe(g.description()), Terminal.safe(g.ranks()), g.size(), Terminal.safe(c.dtype()),
          count(c.inElements()), count(c.outElements()), c.inBytes() < 0 ? "" : String.format(Locale.ROOT,
              " (%.1f MiB in, %.1f MiB out)", c.inBytes() / 1048576.0, c.outBytes() / 1048576.0), c.hostNs() / 1e6,
          c.kernels() == 0 ? "no kernel (none ran, or none was traced)" : String.format(Locale.ROOT,
              "%d× kernel %s, %.3f ms", c.kernels(), Terminal.safe(shorten(c.kernel())), c.kernelNs() / 1e6));
    }
  }

  private static String count(long n) {
    return n < 0 ? "?" : Long.toString(n);
  }

  private static String shorten(String name) {
    return name.length() <= 80 ? name : name.substring(0, 77) + "...";
  }
}
