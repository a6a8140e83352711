package io.gitm.sim;

import io.gitm.device.DeviceException;
import io.gitm.device.GraphExec;
import io.gitm.device.Stream;
import io.gitm.trace.ApiKind;
import java.util.ArrayList;
import java.util.List;

/**
 * Graph capture on the simulated device: while a stream captures, the work queued on it becomes nodes (their
 * effects and timings deferred); a launched graph replays its nodes onto a stream under one correlation id, for one
 * launch's host cost.
 */
final class Graphs {
  private final SimContext ctx;
  private final SimSpec spec;
  private final SimScheduler scheduler;
  private final Launcher launcher;

  Graphs(SimContext ctx, SimScheduler scheduler, Launcher launcher) {
    this.ctx = ctx;
    this.spec = ctx.spec;
    this.scheduler = scheduler;
    this.launcher = launcher;
  }

  void beginCapture(Stream stream) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cuStreamBeginCapture");
    if (s.capture != null) {
      throw new DeviceException("cuStreamBeginCapture", 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
          "stream " + s.id + " is already capturing");
    }
    long t0 = ctx.host;
    ctx.host += ctx.hostCost(spec.copyApiNs());
    s.capture = new ArrayList<>();
    ctx.api(ApiKind.OTHER, "cuStreamBeginCapture", ctx.nextCorrelation(), t0);
  }

  GraphExec endCapture(Stream stream) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cuStreamEndCapture");
    if (s.capture == null) {
      throw new DeviceException("cuStreamEndCapture", 901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
          "stream " + s.id + " is not capturing");
    }
    List<SimStream.Node> nodes = List.copyOf(s.capture);
    s.capture = null;
    long t0 = ctx.host;
    // instantiation cost grows with the graph (model assumption: one launch's host time per node)
    ctx.host += ctx.hostCost(spec.copyApiNs() + nodes.size() * spec.hardware().launchLatencyNs());
    ctx.api(ApiKind.OTHER, "cuGraphInstantiate", ctx.nextCorrelation(), t0);
    return new SimGraph(ctx.device, nodes);
  }

  void launchGraph(GraphExec graph, Stream stream) {
    ctx.check();
    SimStream s = scheduler.stream(stream, "cuGraphLaunch");
    if (!(graph instanceof SimGraph g) || g.device != ctx.device || g.closed) {
      throw new DeviceException("cuGraphLaunch", 400, "CUDA_ERROR_INVALID_HANDLE", "not a live graph of this device");
    }
    long t0 = ctx.host;
    long corr = ctx.nextCorrelation();
    ctx.host += ctx.hostCost(spec.graphLaunchNs());
    scheduler.admit(s);
    for (SimStream.Node n : g.nodes) {
      n.replay(s, corr);
    }
    ctx.api(ApiKind.LAUNCH, "cuGraphLaunch", corr, t0);
    launcher.afterLaunch();
  }
}
