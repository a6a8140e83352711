package io.gitm.sim;

import io.gitm.device.LaunchConfig;
import io.gitm.trace.Work;

/**
 * The time of one kernel from its declared work: a roofline per wave of blocks. Blocks fill the available
 * multiprocessors up to the resident-block limit (threads, registers, shared memory); each wave takes the longer of
 * its flops at the current clock and its bytes at the bandwidth its multiprocessors can draw; a partial last wave
 * runs on fewer multiprocessors (wave quantization). Per-multiprocessor throughput falls with fewer resident warps
 * than {@link #SATURATING_WARPS} (latency not hidden). A kernel whose threads walk a chain of dependent accesses
 * ({@link Work#dependentAccesses()}, {@link Work#dependentOnChipAccesses()}) takes at least that chain's latency:
 * its time is the longer of the roofline and the chain, plus the fixed {@link SimSpec#kernelOverheadNs()}.
 */
final class KernelTiming {
  /** Resident warps per multiprocessor that hide memory and pipeline latency (model assumption). */
  static final int SATURATING_WARPS = 16;
  /** Registers per thread the model assumes for kernels it cannot inspect. */
  static final int ASSUMED_REGISTERS = 32;
  /** One multiprocessor can draw this multiple of its fair share of device-memory bandwidth (model assumption). */
  static final double SM_BANDWIDTH_HEADROOM = 2.0;
  /** Shared memory the driver reserves per resident block. */
  static final int RESERVED_SHARED_PER_BLOCK = 1024;

  /** The outcome: device time, multiprocessors the first wave occupies, the share of time bound by memory. */
  record Result(long durationNs, int smsUsed, double memoryBoundShare, int residentBlocks) {
  }

  private KernelTiming() {
  }

  /** Resident blocks of {@code threads}-thread blocks per multiprocessor; 0 when one block does not fit. */
  static int residentBlocks(SimSpec s, int threads, int registersPerThread, int sharedBytes, int carveoutPercent) {
    int warps = (threads + 31) / 32;
    int byThreads = s.maxThreadsPerSm() / (warps * 32);
    int regs = registersPerThread > 0 ? registersPerThread : ASSUMED_REGISTERS;
    int byRegs = s.registersPerSm() / (regs * warps * 32);
    int sharedCap = carveoutPercent < 0 ? s.sharedPerSm() : (int) ((long) s.sharedPerSm() * carveoutPercent / 100);
    int perBlock = sharedBytes + RESERVED_SHARED_PER_BLOCK;
    int bySmem = sharedBytes == 0 ? Integer.MAX_VALUE : sharedCap / perBlock;
    if (bySmem == 0 && carveoutPercent >= 0 && perBlock <= s.sharedPerSm()) {
      // a preferred carve-out is a hint: the driver raises it as far as one block needs
      bySmem = 1;
    }
    return Math.max(0, Math.min(Math.min(s.maxBlocksPerSm(), byThreads), Math.min(byRegs, bySmem)));
  }

  /** {@code peakFlops}: the device's rate for the work's precision at the boost clock. */
  static Result time(SimSpec s, double peakFlops, Work w, LaunchConfig c, int smsAvailable, double clockMHz,
      double bandwidthFactor, int carveoutPercent) {
    long blocks = c.grid().volume();
    int threads = (int) c.block().volume();
    int warpsPerBlock = (threads + 31) / 32;
    int resident = residentBlocks(s, threads, ASSUMED_REGISTERS, c.dynamicSharedBytes(), carveoutPercent);
    if (resident == 0) {
      resident = 1;
    }
    int smsTotal = s.hardware().multiprocessors();
    double ratePerSm = peakFlops * (clockMHz / s.boostClockMHz()) / smsTotal;
    double hbm = s.hardware().memoryBandwidth() * bandwidthFactor;
    double bwPerSm = hbm / smsTotal * SM_BANDWIDTH_HEADROOM;
    double flopsPerBlock = w.flops() / blocks;
    double bytesPerBlock = (double) w.bytes() / blocks;

    long slots = (long) smsAvailable * resident;
    long fullWaves = blocks / slots;
    long rem = blocks % slots;
    double total = 0;
    double memory = 0;
    if (fullWaves > 0) {
      double[] wave =
          wave(resident, warpsPerBlock, smsAvailable, flopsPerBlock, bytesPerBlock, ratePerSm, bwPerSm, hbm);
      total += fullWaves * wave[0];
      memory += fullWaves * wave[1];
    }
    int smsUsedFirst = smsAvailable;
    if (rem > 0) {
      int smsUsed = (int) Math.min(smsAvailable, rem);
      int perSm = (int) ((rem + smsUsed - 1) / smsUsed);
      double[] wave = wave(perSm, warpsPerBlock, smsUsed, flopsPerBlock, bytesPerBlock, ratePerSm, bwPerSm, hbm);
      total += wave[0];
      memory += wave[1];
      if (fullWaves == 0) {
        smsUsedFirst = smsUsed;
      }
    }
    double chain = chainNs(s, w, clockMHz);
    if (chain > total) {
      // Latency-bound: the roofline's memory time is spread over the longer chain.
      total = chain;
    }
    double share = total > 0 ? memory / total : 0;
    return new Result(Math.round(total + s.kernelOverheadNs()), smsUsedFirst, share, resident);
  }

  /**
   * The time of the work's longest dependent-access chain: its off-chip steps at {@link SimSpec#dependentAccessNs},
   * its on-chip steps at {@link SimSpec#onChipAccessNs} scaled to the current clock (they are counted in cycles).
   */
  static double chainNs(SimSpec s, Work w, double clockMHz) {
    if (!w.hasChain()) {
      return 0;
    }
    double clock = clockMHz > 0 ? clockMHz : s.boostClockMHz();
    return w.dependentAccesses() * s.dependentAccessNs()
        + w.dependentOnChipAccesses() * s.onChipAccessNs() * (s.boostClockMHz() / clock);
  }

  /** {time, memory-bound time} of one wave with {@code perSm} blocks on each of {@code sms} multiprocessors. */
  private static double[] wave(int perSm, int warpsPerBlock, int sms, double flopsPerBlock, double bytesPerBlock,
      double ratePerSm, double bwPerSm, double hbm) {
    double efficiency = Math.min(1.0, (double) perSm * warpsPerBlock / SATURATING_WARPS);
    double tc = ratePerSm > 0 ? perSm * flopsPerBlock / (ratePerSm * efficiency) * 1e9 : 0;
    double smBw = Math.min(bwPerSm * efficiency, hbm / sms);
    double tm = perSm * bytesPerBlock / smBw * 1e9;
    return tm >= tc ? new double[] {tm, tm} : new double[] {tc, 0};
  }
}
