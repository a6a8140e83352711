package io.gitm.analysis.attribution;

import io.gitm.planner.Graph;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Work of different streams that ran one piece after another ({@link StreamOverlap}). Two signatures:
 * predicted-concurrent pairs (the planner's, with no stream wait between them) that did not overlap; and, since a
 * stream wait's event may come from any stream, operations issued while another stream's work was running that
 * (almost) never overlapped it — a single hardware queue, or events chaining every stream (the evidence says which
 * cannot be told apart). The lost time is the overlap that did not happen.
 */
final class SerializationDetector implements Detector {
  private final StreamOverlap overlap;

  SerializationDetector(StreamOverlap overlap) {
    this.overlap = overlap;
  }

  @Override
  public Set<Cause> causes() {
    return EnumSet.of(Cause.FALSE_SERIALIZATION);
  }

  @Override
  public void detect(Input in, Ledger out) {
    StreamOverlap o = overlap;
    if (o.pairsBroken()) {
      Lost l = out.lost(Cause.FALSE_SERIALIZATION);
      List<Graph.Node> nodes = in.graph().nodes();
      for (int[] p : in.graph().concurrentPairs()) {
        Graph.Node a = nodes.get(p[0]);
        Graph.Node b = nodes.get(p[1]);
        if (!StreamOverlap.overlap(a, b)) {
          l.add(in, b.startNs(), Math.min(a.durationNs(), b.durationNs()));
        }
      }
      l.certainty(Math.clamp((double) o.broken / o.pairs * 1.5, 0, 1));
      l.evidence(new Evidence("invariant", String.format(Locale.ROOT,
          "%d of %d predicted-concurrent pairs on different streams did not overlap", o.broken, o.pairs),
          Map.of("broken", o.broken, "pairs", o.pairs)));
    } else if (o.streamsSerialized()) {
      Lost l = out.lost(Cause.FALSE_SERIALIZATION);
      for (int seg = 0; seg < o.segments; seg++) {
        if (o.serial(seg)) {
          l.add(in, o.segmentAt[seg], o.segmentLost[seg]);
        }
      }
      l.certainty(0.8 * o.serial / o.judged);
      l.evidence(new Evidence("trace", String.format(Locale.ROOT,
          "in %d of %d %s, operations issued while work of another stream was running never ran beside it (%d such"
              + " operations there; %d of %d overlapped over the whole run): the streams ran as one queue (a single"
              + " hardware queue, or events chaining every stream)", o.serial, o.judged, o.segmentName(),
          o.serialOpportunities, o.allOverlapped, o.allOpportunities),
          Map.of("segments", o.judged, "serialized", o.serial, "opportunities", o.allOpportunities,
              "overlapped", o.allOverlapped)));
    }
  }
}
