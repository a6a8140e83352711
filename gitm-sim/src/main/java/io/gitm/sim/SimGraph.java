package io.gitm.sim;

import io.gitm.device.GraphExec;
import java.util.List;

/** An instantiated graph: the captured nodes, replayed in capture order onto the stream it is launched on. */
final class SimGraph implements GraphExec {
  final SimDevice device;
  final List<SimStream.Node> nodes;
  boolean closed;

  SimGraph(SimDevice device, List<SimStream.Node> nodes) {
    this.device = device;
    this.nodes = nodes;
  }

  @Override
  public int nodes() {
    return nodes.size();
  }

  @Override
  public void close() {
    closed = true;
  }
}
