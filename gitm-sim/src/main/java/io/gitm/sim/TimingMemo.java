package io.gitm.sim;

import io.gitm.device.LaunchConfig;
import io.gitm.trace.Precision;
import io.gitm.trace.Work;

/** The last timing of one kernel and its inputs: a loop's repeated launches skip the roofline. */
final class TimingMemo {
  private double flops;
  private long read;
  private long written;
  private long chain;
  private long onChip;
  private Precision precision;
  private LaunchConfig config;
  private int sms;
  private double clock;
  private double bandwidth;
  private int carveout;
  private KernelTiming.Result result;

  /** The remembered timing when every input equals the last one's, else null. */
  KernelTiming.Result get(Work w, LaunchConfig c, int sms, double clock, double bw, int carveout) {
    if (result != null && w.flops() == flops && w.bytesRead() == read && w.bytesWritten() == written
        && w.dependentAccesses() == chain && w.dependentOnChipAccesses() == onChip && w.precision() == precision
        && sms == this.sms && clock == this.clock && bw == bandwidth
        && carveout == this.carveout && (c == config || c.equals(config))) {
      return result;
    }
    return null;
  }

  void put(Work w, LaunchConfig c, int sms, double clock, double bw, int carveout, KernelTiming.Result r) {
    flops = w.flops();
    read = w.bytesRead();
    written = w.bytesWritten();
    chain = w.dependentAccesses();
    onChip = w.dependentOnChipAccesses();
    precision = w.precision();
    config = c;
    this.sms = sms;
    this.clock = clock;
    bandwidth = bw;
    this.carveout = carveout;
    result = r;
  }
}
