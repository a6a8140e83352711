package io.gitm.analysis.critical;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The critical-path graph of one window as edge columns over the nodes of {@link Events} (the start and end of
 * each event), and its longest path. Edges are added by {@link Builder}; every one points forward in time or
 * weighs nothing, so the graph is acyclic and the longest path is found in one pass in topological order.
 */
final class PathGraph {
  private static final Edge[] KINDS = Edge.values();

  final Events ev;
  int edges;
  int[] from;
  int[] to;
  byte[] kind;
  /** The event an edge's time is charged to. */
  int[] owner;

  /** A graph over {@code ev}'s nodes; most events add two edges, so that is the first capacity. */
  PathGraph(Events ev) {
    this.ev = ev;
    int capacity = 2 * ev.n + 16;
    from = new int[capacity];
    to = new int[capacity];
    kind = new byte[capacity];
    owner = new int[capacity];
  }

  void add(int a, int b, Edge k, int chargedTo) {
    if (a == b) {
      return;
    }
    if (edges == from.length) {
      int c = edges + edges / 2;
      from = Arrays.copyOf(from, c);
      to = Arrays.copyOf(to, c);
      kind = Arrays.copyOf(kind, c);
      owner = Arrays.copyOf(owner, c);
    }
    from[edges] = a;
    to[edges] = b;
    kind[edges] = (byte) k.ordinal();
    owner[edges] = chargedTo;
    edges++;
  }

  Edge kind(int e) {
    return KINDS[kind[e]];
  }

  /** The time edge {@code e} weighs: the time between its nodes for a timed kind (never negative), else 0. */
  long weight(int e) {
    return kind(e).timed() ? Math.max(0, ev.ts(to[e]) - ev.ts(from[e])) : 0;
  }

  /**
   * The edges of a longest path, in order (empty for an empty graph), or null when the graph has a cycle. Ties go to
   * the path found first in node order.
   */
  int @Nullable [] longestPath() {
    int nodes = 2 * ev.n;
    int[] out = new int[nodes + 1];
    int[] indegree = new int[nodes];
    for (int e = 0; e < edges; e++) {
      out[from[e] + 1]++;
      indegree[to[e]]++;
    }
    for (int v = 0; v < nodes; v++) {
      out[v + 1] += out[v];
    }
    int[] adj = new int[edges];
    int[] fill = Arrays.copyOf(out, nodes);
    for (int e = 0; e < edges; e++) {
      adj[fill[from[e]]++] = e;
    }
    long[] dist = new long[nodes];
    int[] pred = new int[nodes];
    Arrays.fill(pred, -1);
    int[] queue = new int[nodes];
    int head = 0;
    int tail = 0;
    for (int v = 0; v < nodes; v++) {
      if (indegree[v] == 0) {
        queue[tail++] = v;
      }
    }
    int best = -1;
    while (head < tail) {
      int v = queue[head++];
      if (best < 0 || dist[v] > dist[best]) {
        best = v;
      }
      for (int i = out[v]; i < out[v + 1]; i++) {
        int e = adj[i];
        int w = to[e];
        long d = dist[v] + weight(e);
        if (pred[w] < 0 || d > dist[w]) {
          dist[w] = d;
          pred[w] = e;
        }
        if (--indegree[w] == 0) {
          queue[tail++] = w;
        }
      }
    }
    if (tail < nodes) {
      return null;
    }
    int length = 0;
    for (int v = best; v >= 0 && pred[v] >= 0; v = from[pred[v]]) {
      length++;
    }
    int[] path = new int[length];
    for (int v = best, i = length - 1; v >= 0 && pred[v] >= 0; v = from[pred[v]]) {
      path[i--] = pred[v];
    }
    return path;
  }
}
