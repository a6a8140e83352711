package io.gitm.analysis;

import io.gitm.device.HardwareSpec;
import io.gitm.trace.Precision;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The datasheet ceilings of the GPU models a real trace may name, for judging traces of devices gitm has not
 * calibrated: peak DRAM bandwidth, host link (PCIe, per direction) and dense peak FLOP rates as the vendor's datasheet
 * states them; multiprocessor count, boost clock and L2 size from the architecture's whitepaper. A bound from them is
 * a true ceiling: no operation can beat it, so an operation faster than it means the trace or the work it declares is
 * wrong. The table and its sources are in {@code docs/trace-analysis.md}.
 */
final class GpuModels {
  private static final double GB = 1e9;
  private static final double TERA = 1e12;
  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;

  /** PCIe x16 per direction: Gen3 16 GB/s, Gen4 32 GB/s, Gen5 64 GB/s (the datasheets' bidirectional halves). */
  private static final double GEN3 = 16 * GB;
  private static final double GEN4 = 32 * GB;
  private static final double GEN5 = 64 * GB;

  /**
   * Pageable host copies as a share of the link: the pinned rate's share of the link (0.8) times pageable's share of
   * pinned (0.4). A model assumption, not a ceiling: it bounds a pageable copy only from above (its lower bound is
   * the link's peak, the rate of the DMA from the driver's staging buffer).
   */
  private static final double PAGEABLE_SHARE = 0.8 * 0.4;

  /** Host time of one launch assumed for a model gitm has not measured (the kernel-wait threshold derives from it). */
  private static final double LAUNCH_NS = 4000;

  /**
   * One GPU model.
   *
   * @param name the model as the datasheet names it
   * @param names the device names it matches: each a set of words that must all occur in the name (lower case,
   *     split at anything but letters and digits), any one set enough
   * @param dramBytesPerS peak device-memory bandwidth
   * @param linkBytesPerS peak host-link bandwidth per direction
   * @param flops dense peak rates; a precision the datasheet does not state falls back to FP32
   * @param source where the figures come from
   */
  record GpuModel(String name, List<Set<String>> names, int sms, double boostMHz, long memoryBytes, long l2Bytes,
      double dramBytesPerS, double linkBytesPerS, Map<Precision, Double> flops, String source) {
    boolean matches(Set<String> words) {
      return names.stream().anyMatch(words::containsAll);
    }

    /** The ceilings of this model, as the planner and the attribution use them. */
    HardwareSpec spec() {
      return new HardwareSpec(name, "", "", sms, boostMHz, memoryBytes, l2Bytes, dramBytesPerS, flops,
          linkBytesPerS, linkBytesPerS, linkBytesPerS * PAGEABLE_SHARE, linkBytesPerS * PAGEABLE_SHARE, LAUNCH_NS,
          1000, "datasheet " + name + ": " + source);
    }
  }

  private static Map<Precision, Double> flops(double fp64, double fp32, double tf32, double bf16, double fp16) {
    Map<Precision, Double> f = new EnumMap<>(Precision.class);
    f.put(Precision.FP32, fp32 * TERA);
    if (fp64 > 0) {
      f.put(Precision.FP64, fp64 * TERA);
    }
    if (tf32 > 0) {
      f.put(Precision.TF32, tf32 * TERA);
    }
    if (bf16 > 0) {
      f.put(Precision.BF16, bf16 * TERA);
    }
    if (fp16 > 0) {
      f.put(Precision.FP16, fp16 * TERA);
    }
    return f;
  }

  private static List<Set<String>> names(String... sets) {
    return Arrays.stream(sets).map(s -> Set.of(s.split(" "))).toList();
  }

  private static final String V100 = "NVIDIA V100 Tensor Core GPU datasheet (2020): 900 GB/s HBM2, PCIe Gen3 32 GB/s"
      + " both ways; Volta whitepaper: 80 SMs, 6 MB L2";
  private static final String A100 = "NVIDIA A100 Tensor Core GPU datasheet (2021), dense figures; PCIe Gen4 64 GB/s"
      + " both ways; Ampere GA100 whitepaper: 108 SMs, 1410 MHz boost, 40 MB L2";
  private static final String H100 = "NVIDIA H100 Tensor Core GPU datasheet (2023), dense figures (half the sparse"
      + " ones); PCIe Gen5 128 GB/s both ways; Hopper whitepaper: 50 MB L2";
  private static final String H200 = "NVIDIA H200 Tensor Core GPU datasheet (2024), dense figures (half the sparse"
      + " ones); PCIe Gen5 128 GB/s both ways; Hopper whitepaper: 132 SMs, 1980 MHz boost";

  /** Most specific first: the first model whose names match is the device's. */
  static final List<GpuModel> TABLE = List.of(
      new GpuModel("V100 SXM2 16GB", names("v100 sxm2 16gb"), 80, 1530, 16 * GIB, 6 * MIB, 900 * GB, GEN3,
          flops(7.8, 15.7, 0, 0, 125), V100 + ", 1530 MHz boost; FP64 7.8, FP32 15.7, tensor FP16 125 TFLOP/s"),
      new GpuModel("V100 SXM2 32GB", names("v100 sxm2 32gb"), 80, 1530, 32 * GIB, 6 * MIB, 900 * GB, GEN3,
          flops(7.8, 15.7, 0, 0, 125), V100 + ", 1530 MHz boost; FP64 7.8, FP32 15.7, tensor FP16 125 TFLOP/s"),
      new GpuModel("V100 PCIe 16GB", names("v100 pcie 16gb"), 80, 1380, 16 * GIB, 6 * MIB, 900 * GB, GEN3,
          flops(7, 14, 0, 0, 112), V100 + ", 1380 MHz boost; FP64 7, FP32 14, tensor FP16 112 TFLOP/s"),
      new GpuModel("V100 PCIe 32GB", names("v100 pcie 32gb"), 80, 1380, 32 * GIB, 6 * MIB, 900 * GB, GEN3,
          flops(7, 14, 0, 0, 112), V100 + ", 1380 MHz boost; FP64 7, FP32 14, tensor FP16 112 TFLOP/s"),
      new GpuModel("A100 PCIe 80GB", names("a100 pcie 80gb"), 108, 1410, 80 * GIB, 40 * MIB, 1935 * GB, GEN4,
          flops(9.7, 19.5, 156, 312, 312), A100 + "; 1,935 GB/s HBM2e; FP64 9.7, FP32 19.5, TF32 156, BF16/FP16 312"
              + " TFLOP/s"),
      new GpuModel("A100 PCIe 40GB", names("a100 pcie"), 108, 1410, 40 * GIB, 40 * MIB, 1555 * GB, GEN4,
          flops(9.7, 19.5, 156, 312, 312), A100 + "; 1,555 GB/s HBM2; FP64 9.7, FP32 19.5, TF32 156, BF16/FP16 312"
              + " TFLOP/s"),
      new GpuModel("A100 SXM4 80GB", names("a100 80gb"), 108, 1410, 80 * GIB, 40 * MIB, 2039 * GB, GEN4,
          flops(9.7, 19.5, 156, 312, 312), A100 + "; 2,039 GB/s HBM2e; FP64 9.7, FP32 19.5, TF32 156, BF16/FP16 312"
              + " TFLOP/s"),
      new GpuModel("A100 SXM4 40GB", names("a100 40gb"), 108, 1410, 40 * GIB, 40 * MIB, 1555 * GB, GEN4,
          flops(9.7, 19.5, 156, 312, 312), A100 + "; 1,555 GB/s HBM2; FP64 9.7, FP32 19.5, TF32 156, BF16/FP16 312"
              + " TFLOP/s"),
      new GpuModel("H100 PCIe", names("h100 pcie"), 114, 1755, 80 * GIB, 50 * MIB, 2000 * GB, GEN5,
          flops(26, 51, 378, 756.5, 756.5), H100 + "; 114 SMs, 1755 MHz boost; 2 TB/s HBM2e; FP64 26, FP32 51, TF32"
              + " 378, BF16/FP16 756.5 TFLOP/s"),
      new GpuModel("H100 SXM", names("h100 hbm3", "h100 sxm5", "h100 sxm"), 132, 1980, 80 * GIB, 50 * MIB, 3350 * GB,
          GEN5, flops(34, 67, 494.5, 989.5, 989.5), H100 + "; 132 SMs, 1980 MHz boost; 3.35 TB/s HBM3; FP64 34, FP32"
              + " 67, TF32 494.5, BF16/FP16 989.5 TFLOP/s"),
      new GpuModel("H200 SXM", names("h200"), 132, 1980, 141_000_000_000L, 60 * MIB, 4800 * GB, GEN5,
          flops(34, 67, 494.5, 989.5, 989.5), H200 + "; 4.8 TB/s HBM3e; FP64 34, FP32 67, TF32 494.5, BF16/FP16 989.5"
              + " TFLOP/s"),
      new GpuModel("L4", names("l4"), 58, 2040, 24 * GIB, 48 * MIB, 300 * GB, GEN4, flops(0, 30.3, 60, 121, 121),
          "NVIDIA L4 Tensor Core GPU datasheet (2023), dense figures (half the sparse ones): 300 GB/s GDDR6, PCIe Gen4"
              + " 64 GB/s both ways, FP32 30.3, TF32 60, BF16/FP16 121 TFLOP/s, no FP64 figure; Ada whitepaper: 58 SMs"
              + " (7,424 CUDA cores), 2040 MHz boost, 48 MB L2"),
      new GpuModel("A10", names("a10"), 72, 1695, 24 * GIB, 6 * MIB, 600 * GB, GEN4, flops(0, 31.2, 62.5, 125, 125),
          "NVIDIA A10 Tensor Core GPU datasheet (2021), dense figures (half the sparse ones): 600 GB/s GDDR6, PCIe Gen4"
              + " 64 GB/s both ways, FP32 31.2, TF32 62.5, BF16/FP16 125 TFLOP/s, no FP64 figure; Ampere GA102"
              + " whitepaper: 72 SMs, 1695 MHz boost, 6 MB L2"));

  /** The model whose figures bound an unknown device: the highest DRAM, link and FLOP figures of the table. */
  static final GpuModel GENERIC = TABLE.stream().filter(m -> m.name().equals("H200 SXM")).findFirst().orElseThrow();

  private GpuModels() {}

  /** The model {@code deviceName} names (e.g. "NVIDIA A100-SXM4-80GB", "Tesla V100-SXM2-16GB"), if the table has it. */
  static Optional<GpuModel> of(String deviceName) {
    Set<String> words = words(deviceName);
    if (words.contains("nvl")) {
      // the NVL boards (H100 NVL, H200 NVL) have figures of their own, which the table does not hold
      return Optional.empty();
    }
    return TABLE.stream().filter(m -> m.matches(words)).findFirst();
  }

  /** Whether {@code deviceName} is an H200 of the kind the h200 preset was measured on (not an H200 NVL). */
  static boolean isH200(String deviceName) {
    Set<String> words = words(deviceName);
    return words.contains("h200") && !words.contains("nvl");
  }

  private static Set<String> words(String name) {
    String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
    return Arrays.stream(n.split("[^a-z0-9]+")).filter(w -> !w.isEmpty()).collect(Collectors.toSet());
  }
}
