package io.gitm.sim;

import io.gitm.device.HardwareSpec;
import io.gitm.trace.Precision;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Everything the simulated device models about one GPU: the measured or documented ceilings ({@link HardwareSpec})
 * and the model's own parameters (multiprocessor limits, host-side API costs, allocator, power and thermal model).
 * Figures and their sources are listed in {@code docs/sim.md}.
 *
 * @param hardware ceilings the roofline uses; {@code smClockMHz} is the boost clock under load
 * @param preset the preset name ({@code h200}, {@code h100}, {@code a100}) or {@code calibrated:<name>}
 * @param computeCapability e.g. {@code 9.0}
 * @param maxThreadsPerSm resident threads per multiprocessor
 * @param maxBlocksPerSm resident blocks per multiprocessor
 * @param registersPerSm 32-bit registers per multiprocessor
 * @param sharedPerSm shared memory per multiprocessor at the largest carve-out, bytes
 * @param idleClockMHz SM clock with no work (NVML reports it with reason bit 0x1)
 * @param kernelOverheadNs fixed device time of any kernel (launch and drain of the grid)
 * @param dependentAccessNs latency of one step of a dependent-access chain that leaves the multiprocessor
 *     ({@link io.gitm.trace.Work#dependentAccesses()}: an L2 hit, or a device-memory access)
 * @param onChipAccessNs latency of one step of a dependent-access chain served on the multiprocessor
 *     ({@link io.gitm.trace.Work#dependentOnChipAccesses()}: L1 or shared memory), at the boost clock
 * @param copyLatencyNs fixed device time of any copy or memset
 * @param timingEventNs device time a stream spends on recording an event with timing enabled
 * @param copyApiNs host time of an asynchronous copy, memset, event or stream call
 * @param graphLaunchNs host time of one graph launch, whatever its size
 * @param mallocNs host time of {@code cuMemAlloc} (besides the synchronization it implies)
 * @param mallocNsPerMiB further host time of {@code cuMemAlloc} per MiB (page mapping)
 * @param freeNs host time of {@code cuMemFree} (besides the synchronization it implies)
 * @param poolAllocNs host time of a stream-ordered allocation the pool can serve
 * @param poolGrowNs host time of a stream-ordered allocation that must grow the pool
 * @param launchQueueDepth pending operations per stream before a submitting host call blocks
 * @param idlePowerW board power with no work
 * @param powerLimitW default (and enforced) board power limit
 * @param ambientC inlet temperature
 * @param thermalResistanceCPerW steady-state temperature rise per watt
 * @param thermalTauSeconds thermal time constant of die and heatsink
 * @param swSlowdownC temperature above which the driver lowers clocks (reason 0x20)
 * @param hwSlowdownC temperature above which the hardware halves clocks (reasons 0x40 | 0x8)
 */
public record SimSpec(HardwareSpec hardware, String preset, String computeCapability, int maxThreadsPerSm,
    int maxBlocksPerSm, int registersPerSm, int sharedPerSm, double idleClockMHz, double kernelOverheadNs,
    double dependentAccessNs, double onChipAccessNs, double copyLatencyNs, double timingEventNs, double copyApiNs,
    double graphLaunchNs, double mallocNs, double mallocNsPerMiB,
    double freeNs, double poolAllocNs, double poolGrowNs, int launchQueueDepth, double idlePowerW,
    double powerLimitW, double ambientC, double thermalResistanceCPerW, double thermalTauSeconds, double swSlowdownC,
    double hwSlowdownC) {

  public SimSpec {
    if (hardware == null) {
      throw new IllegalArgumentException("a simulated device needs a hardware spec");
    }
    if (hardware.multiprocessors() <= 0 || hardware.smClockMHz() <= 0 || hardware.memoryBandwidth() <= 0
        || hardware.hostToDevicePinned() <= 0 || hardware.deviceToHostPinned() <= 0
        || hardware.hostToDevicePageable() <= 0 || hardware.deviceToHostPageable() <= 0
        || hardware.flopsFor(Precision.FP32) <= 0) {
      throw new IllegalArgumentException("hardware spec '" + hardware.deviceName()
          + "' lacks a positive multiprocessor count, clock, memory bandwidth, host-link rates or FP32 rate");
    }
    if (!(kernelOverheadNs >= 0) || !(dependentAccessNs >= 0) || !(onChipAccessNs >= 0) || !(copyLatencyNs >= 0)
        || !(timingEventNs >= 0)) {
      throw new IllegalArgumentException("device-side latencies must be non-negative numbers");
    }
    if (maxThreadsPerSm <= 0 || maxBlocksPerSm <= 0 || registersPerSm <= 0 || sharedPerSm <= 0
        || launchQueueDepth <= 0) {
      throw new IllegalArgumentException("multiprocessor limits and queue depth must be positive");
    }
  }

  /** The boost clock (the SM clock under load), which the flops figures refer to. */
  public double boostClockMHz() {
    return hardware.smClockMHz();
  }

  /** Dynamic power at full activity and boost clock: what the limit leaves above idle. */
  double dynamicPowerW() {
    return powerLimitW - idlePowerW;
  }

  /** The preset named {@code name}: {@code h200} (default), {@code h100} or {@code a100}. */
  public static SimSpec preset(String name) {
    String n = name == null ? "h200" : name.strip().toLowerCase(Locale.ROOT);
    return switch (n) {
      case "h200", "" -> h200();
      case "h100" -> h100();
      case "a100" -> a100();
      default -> throw new IllegalArgumentException("unknown sim preset '" + name + "': use h200, h100 or a100");
    };
  }

  /**
   * A spec from a calibrated {@link HardwareSpec} ({@code gitm calibrate}): its measured ceilings replace the base
   * preset's, the model parameters it does not measure come from {@code basePreset}.
   */
  public static SimSpec fromCalibration(HardwareSpec calibrated, String basePreset) {
    SimSpec b = preset(basePreset);
    HardwareSpec h = calibrated;
    HardwareSpec base = b.hardware();
    Map<Precision, Double> flops = new EnumMap<>(Precision.class);
    flops.putAll(base.flops());
    h.flops().forEach((p, v) -> {
      if (v != null && v > 0) {
        flops.put(p, v);
      }
    });
    HardwareSpec merged = new HardwareSpec(or(h.deviceName(), base.deviceName()), or(h.uuid(), base.uuid()),
        or(h.driver(), base.driver()), h.multiprocessors() > 0 ? h.multiprocessors() : base.multiprocessors(),
        pos(h.smClockMHz(), base.smClockMHz()), h.memoryBytes() > 0 ? h.memoryBytes() : base.memoryBytes(),
        h.l2Bytes() > 0 ? h.l2Bytes() : base.l2Bytes(), pos(h.memoryBandwidth(), base.memoryBandwidth()), flops,
        pos(h.hostToDevicePinned(), base.hostToDevicePinned()), pos(h.deviceToHostPinned(), base.deviceToHostPinned()),
        pos(h.hostToDevicePageable(), base.hostToDevicePageable()),
        pos(h.deviceToHostPageable(), base.deviceToHostPageable()), pos(h.launchLatencyNs(), base.launchLatencyNs()),
        pos(h.eventResolutionNs(), base.eventResolutionNs()),
        "calibrated (" + or(h.source(), "calibrate") + ") over preset " + b.preset());
    return new SimSpec(merged, "calibrated:" + b.preset(), b.computeCapability, b.maxThreadsPerSm, b.maxBlocksPerSm,
        b.registersPerSm, b.sharedPerSm, b.idleClockMHz, b.kernelOverheadNs, b.dependentAccessNs, b.onChipAccessNs,
        b.copyLatencyNs, b.timingEventNs, b.copyApiNs,
        b.graphLaunchNs, b.mallocNs, b.mallocNsPerMiB, b.freeNs, b.poolAllocNs, b.poolGrowNs, b.launchQueueDepth,
        b.idlePowerW, b.powerLimitW, b.ambientC, b.thermalResistanceCPerW, b.thermalTauSeconds, b.swSlowdownC,
        b.hwSlowdownC);
  }

  private static String or(String a, String b) {
    return a == null || a.isBlank() ? b : a;
  }

  private static double pos(double a, double b) {
    return a > 0 && Double.isFinite(a) ? a : b;
  }

  private static final double GB = 1e9;
  private static final double TERA = 1e12;

  // Tensor-core figures of the h100 and a100 presets are the datasheet's dense figures scaled by the ratio measured
  // on the lent H200 (bf16 GEMM ~790 of 989 TFLOP/s dense); CUDA-core FP32/FP64 are the datasheet's; INT32 falls back
  // to FP32 (HardwareSpec.flopsFor). See docs/sim.md.
  private static final double HOPPER_TENSOR_EFFICIENCY = 790.0 / 989.0;
  // Effective/datasheet HBM bandwidth on the lent H200: saxpy 3.3 TB/s of 4.8 TB/s.
  private static final double HBM_EFFICIENCY = 3.3 / 4.8;
  // Host link: achieved pinned rate as a share of the PCIe x16 link rate, and pageable as a share of pinned
  // (model assumptions, replaced by calibration).
  private static final double PCIE_EFFICIENCY = 0.8;
  private static final double PAGEABLE_SHARE = 0.4;

  // Device-side latencies of Hopper, calibrated on the lent H200 against CUPTI kernel durations of
  // hft-lob (gitm-trace/src/test/resources/tracer/real/hft-lob-h200-cupti.gtrace) and its event-timed profiling pass
  // (docs/evidence/2026-11-29-h200.tar.xz!/hft-lob.txt); the derivations are in docs/sim.md.
  /** Fixed device time of a kernel: lob_route_hist's 1.2 us CUPTI duration less its two-step chain. */
  static final double HOPPER_KERNEL_OVERHEAD_NS = 1000;
  /** One off-chip chain step: lob_route_chunks, 128 serial L2-resident steps in 16.7 us (about 260 cycles). */
  static final double HOPPER_DEPENDENT_ACCESS_NS = 125;
  /** One on-chip chain step: lob_route_scan, 160 serial shared-memory/L1 steps in 10.7 us (about 120 cycles). */
  static final double HOPPER_ON_CHIP_ACCESS_NS = 60;
  /** Fixed device time of a copy: the event-timed d2h of three copies (31.6 us) less their bytes at 55.2 GB/s. */
  static final double HOPPER_COPY_LATENCY_NS = 2500;
  /** A timing event's device time: event brackets exceed CUPTI durations by 2.2-2.7 us (features, mlp, scan). */
  static final double HOPPER_TIMING_EVENT_NS = 2400;

  private static Map<Precision, Double> hopperFlops() {
    Map<Precision, Double> f = new EnumMap<>(Precision.class);
    f.put(Precision.BF16, 989 * TERA * HOPPER_TENSOR_EFFICIENCY);
    f.put(Precision.FP16, 989 * TERA * HOPPER_TENSOR_EFFICIENCY);
    f.put(Precision.TF32, 494 * TERA * HOPPER_TENSOR_EFFICIENCY);
    f.put(Precision.FP32, 67 * TERA);
    f.put(Precision.FP64, 34 * TERA);
    return f;
  }

  /**
   * The lent H200 as {@code gitm calibrate} measured it (docs/evidence/2026-11-29-h200.tar.xz!/calibration.json):
   * device copy 4.15e12 B/s, cuBLAS GEMM FP32 50.8, TF32 408.5, BF16 405.7 TFLOP/s (FAST_16BF on FP32 data), host link
   * pinned 55.3/55.2 GB/s and pageable 8.8/15.1 GB/s (H2D/D2H), launch 4.8 us, events 32 ns; 132 SMs, 60 MiB L2, 1980
   * MHz under load. FP16 and FP64 were not measured: datasheet figures as above. INT32: 64 lanes per SM per clock
   * (Hopper), 132 x 64 x 1.98e9 operations/s.
   */
  static SimSpec h200() {
    Map<Precision, Double> f = hopperFlops();
    f.put(Precision.FP32, 5.084561640402935E13);
    f.put(Precision.TF32, 4.08548422922065E14);
    f.put(Precision.BF16, 4.057118848709211E14);
    f.put(Precision.INT32, 132 * 64 * 1.98e9);
    HardwareSpec h = new HardwareSpec("NVIDIA H200", "SIM-H200-0000", "sim", 132, 1980, 150_109_880_320L,
        62_914_560L, 4.1486045713511226E12, f, 5.533235449502601E10, 5.518148301409799E10, 8.84345537479784E9,
        1.5125574198637808E10, 4798, 32,
        "preset h200: gitm calibrate on the lent H200 (2026-11-29), "
            + "device-side latencies fitted to its hft-lob traces");
    return hopper(h, "h200", 82);
  }

  static SimSpec h100() {
    double link = 64 * GB * PCIE_EFFICIENCY;
    HardwareSpec h = new HardwareSpec("NVIDIA H100 80GB HBM3", "SIM-H100-0000", "sim", 132, 1980, 80_000_000_000L,
        50L * 1024 * 1024, 3.35e12 * HBM_EFFICIENCY, hopperFlops(), link, link, link * PAGEABLE_SHARE,
        link * PAGEABLE_SHARE, 4000, 1000, "preset h100: H100 SXM5 datasheet, efficiencies measured on the lent H200");
    return hopper(h, "h100", 82);
  }

  static SimSpec a100() {
    double link = 32 * GB * PCIE_EFFICIENCY;
    Map<Precision, Double> f = new EnumMap<>(Precision.class);
    f.put(Precision.BF16, 312 * TERA * HOPPER_TENSOR_EFFICIENCY);
    f.put(Precision.FP16, 312 * TERA * HOPPER_TENSOR_EFFICIENCY);
    f.put(Precision.TF32, 156 * TERA * HOPPER_TENSOR_EFFICIENCY);
    f.put(Precision.FP32, 19.5 * TERA);
    f.put(Precision.FP64, 9.7 * TERA);
    f.put(Precision.INT32, 19.5 * TERA);
    HardwareSpec h = new HardwareSpec("NVIDIA A100-SXM4-80GB", "SIM-A100-0000", "sim", 108, 1410, 80_000_000_000L,
        40L * 1024 * 1024, 2.039e12 * HBM_EFFICIENCY, f, link, link, link * PAGEABLE_SHARE, link * PAGEABLE_SHARE,
        4000, 1000, "preset a100: A100 SXM4 80GB datasheet, efficiencies measured on the lent H200");
    // Latencies: Hopper's, the on-chip step scaled to the lower clock (same cycles); not measured on an A100.
    return new SimSpec(h, "a100", "8.0", 2048, 32, 65536, 164 * 1024, 210, HOPPER_KERNEL_OVERHEAD_NS,
        HOPPER_DEPENDENT_ACCESS_NS, HOPPER_ON_CHIP_ACCESS_NS * 1980 / 1410, HOPPER_COPY_LATENCY_NS,
        HOPPER_TIMING_EVENT_NS, 2000, 4000, 20_000, 200, 10_000, 1000, 20_000, 1024, 60, 400, 30, 0.1, 5, 87, 90);
  }

  private static SimSpec hopper(HardwareSpec h, String preset, double idleW) {
    return new SimSpec(h, preset, "9.0", 2048, 32, 65536, 228 * 1024, 345, HOPPER_KERNEL_OVERHEAD_NS,
        HOPPER_DEPENDENT_ACCESS_NS, HOPPER_ON_CHIP_ACCESS_NS, HOPPER_COPY_LATENCY_NS, HOPPER_TIMING_EVENT_NS, 2000,
        4000, 20_000, 200, 10_000, 1000, 20_000, 1024, idleW, 700, 30, 0.06, 5, 87, 90);
  }
}
