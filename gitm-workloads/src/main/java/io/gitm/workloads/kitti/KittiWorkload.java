package io.gitm.workloads.kitti;

import io.gitm.device.Device;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.InputFingerprint;
import io.gitm.workload.Knob;
import io.gitm.workload.OutputScore;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadInput;
import io.gitm.workload.WorkloadSpec;
import io.gitm.workloads.kit.DeviceDefaults;
import io.gitm.workloads.kit.Settings;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code kitti}: PointPillars-style 3D object detection on LiDAR scans. Each step is one frame: the scan is copied to
 * the device, cropped to the detection range, its points assigned to pillars (atomics), each pillar's points
 * decorated and run through a small PointNet (linear, folded norm, ReLU, max), the pillar features scattered to a
 * bird's-eye-view pseudo-image, a 2D convolutional backbone and neck (im2col + cuBLAS GEMM), an anchor head, box
 * decoding and rotated-box NMS; the detections are copied back. Metric: frames per second; extras per step: the
 * frame's latency (copy in to detections on the host) and the session's p50 and p99.
 *
 * <p>The shipped configuration is a first port's: pageable frame buffers, synchronous copy then compute, one stream,
 * every per-frame buffer allocated and freed each frame. See {@code docs/kitti.md}.
 */
public final class KittiWorkload implements Workload {
  /** System property read by {@link #KittiWorkload()}: {@link Params#parse} settings over the device's defaults. */
  public static final String PROPERTY = "gitm.kitti";

  /**
   * What the workload runs.
   *
   * @param seed the generated scans' seed; {@code frames} distinct frames, cycled through
   * @param beams, azimuthSteps the generated LiDAR's rays (64 × 2083: about 120k points a frame)
   * @param pillar the pillar size in metres (PointPillars: 0.16)
   * @param maxPillars, maxPoints pillars kept a frame, points kept a pillar (PointPillars: 12000, 32)
   * @param channels the pillar features' width C (PointPillars: 64)
   * @param maxCandidates, maxDetections boxes NMS sorts (a power of two up to 4096) and keeps
   * @param scoreThreshold, iouThreshold NMS's score floor and BEV IoU above which a box is suppressed
   */
  public record Params(long seed, long weightSeed, int frames, int beams, int azimuthSteps, float pillar,
      int maxPillars, int maxPoints, int channels, int maxCandidates, int maxDetections, float scoreThreshold,
      float iouThreshold) {
    public Params {
      if (frames < 1 || maxPillars < 1 || maxPoints < 1 || channels < 1 || maxDetections < 1) {
        throw new IllegalArgumentException("kitti: frames, maxPillars, maxPoints, channels and maxDetections must be"
            + " positive");
      }
      if (Integer.bitCount(maxCandidates) != 1 || maxCandidates > KittiKernels.MAX_CANDIDATES) {
        throw new IllegalArgumentException("kitti: maxCandidates must be a power of two up to "
            + KittiKernels.MAX_CANDIDATES + ", got " + maxCandidates);
      }
      new ScanGenerator(seed, beams, azimuthSteps);
      grid(pillar);
    }

    private static Grid grid(float pillar) {
      return Grid.pointPillars(pillar);
    }

    Grid grid() {
      return grid(pillar);
    }

    ScanGenerator generator() {
      return new ScanGenerator(seed, beams, azimuthSteps);
    }

    /** For a real GPU: PointPillars on KITTI (0.16 m pillars: 432 × 496, C 64, 12000 pillars of 32 points). */
    public static Params h200() {
      return new Params(20261130L, 7L, 8, 64, 2083, 0.16f, 12000, 32, 64, 4096, 100, 0.2f, 0.5f);
    }

    /**
     * For the simulated device, which emulates every kernel and GEMM in Java: full 120k-point scans, pillars of
     * 0.64 m (108 × 124) and C 16, so that a frame emulates in a fraction of a second here.
     */
    public static Params simulated() {
      return new Params(20261130L, 7L, 4, 64, 2083, 0.64f, 12000, 32, 16, 1024, 100, 0.2f, 0.5f);
    }

    private static final List<String> KEYS = List.of("seed", "weightSeed", "frames", "beams", "azimuthSteps", "pillar",
        "maxPillars", "maxPoints", "channels", "maxCandidates", "maxDetections", "scoreThreshold", "iouThreshold");

    /** These parameters with {@code spec}'s comma-separated {@code key=value} settings applied. */
    public Params parse(String spec) {
      Map<String, String> v = Settings.pairs(spec, "kitti", KEYS);
      try {
        return new Params(l(v, "seed", seed), l(v, "weightSeed", weightSeed), (int) l(v, "frames", frames),
            (int) l(v, "beams", beams), (int) l(v, "azimuthSteps", azimuthSteps), f(v, "pillar", pillar),
            (int) l(v, "maxPillars", maxPillars), (int) l(v, "maxPoints", maxPoints), (int) l(v, "channels", channels),
            (int) l(v, "maxCandidates", maxCandidates), (int) l(v, "maxDetections", maxDetections),
            f(v, "scoreThreshold", scoreThreshold), f(v, "iouThreshold", iouThreshold));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("kitti settings: not a number in '" + spec + "' (" + e.getMessage() + ")");
      }
    }

    private static long l(Map<String, String> v, String k, long d) {
      return v.containsKey(k) ? Long.parseLong(v.get(k)) : d;
    }

    private static float f(Map<String, String> v, String k, float d) {
      return v.containsKey(k) ? Float.parseFloat(v.get(k)) : d;
    }
  }

  private final DeviceDefaults<Params> params;
  /** The user's input, or null for the generated frames. */
  private final KittiInput input;

  /** The device's defaults, changed by the settings in system property {@value #PROPERTY} when set. */
  public KittiWorkload() {
    this(DeviceDefaults.fromProperty(PROPERTY, Params::simulated, Params::h200, Params::parse), null);
  }

  public KittiWorkload(Params params) {
    this(DeviceDefaults.fixed(params, "kitti"), null);
  }

  private KittiWorkload(DeviceDefaults<Params> params, KittiInput input) {
    this.params = params;
    this.input = input;
  }

  @Override
  public Workload withInput(WorkloadInput in) {
    return new KittiWorkload(params, KittiInput.of(in));
  }

  @Override
  public List<String> inputFormats() {
    return KittiInput.FORMATS;
  }

  @Override
  public Optional<InputFingerprint> input() {
    return input == null ? Optional.empty() : input.fingerprint();
  }

  /** The detections scored against the input's {@code label_2}, once a session has run on them. */
  @Override
  public Optional<OutputScore> score() {
    return input == null ? Optional.empty() : input.score();
  }

  /** The parameters a session on {@code device} runs with. */
  public Params params(Device device) {
    return params.on(device);
  }

  @Override
  public WorkloadSpec spec() {
    return new WorkloadSpec("kitti",
        "PointPillars-style 3D LiDAR detection: pillar scatter with atomics, PointNet, BEV conv backbone (im2col +"
            + " cuBLAS), anchor head, rotated-box NMS; one 120k-point frame a step, its copy in the measurement",
        List.of(KittiKernels.MODULE), knobs(), Map.of(), 0, "frames/s", true);
  }

  static Set<Knob> knobs() {
    return EnumSet.of(Knob.HOST_MEMORY, Knob.ALLOCATION, Knob.STREAMS, Knob.ASYNC_COPIES, Knob.GRAPH_CAPTURE,
        Knob.BLOCK_SIZE, Knob.WARMUP);
  }

  @Override
  public Session open(Device device, ExecutionConfig config, Path dataDir) {
    KittiSession.check(config);
    if (device == null || dataDir == null) {
      throw new IllegalArgumentException("kitti: open needs a device and a data directory (datasets/edge/)");
    }
    Params p = params(device);
    KittiWeights weights = KittiWeights.seeded(p.channels(), p.weightSeed());
    if (input != null) {
      Frames frames = input.frames();
      input.model(p);
      return new KittiSession(device, config, p, weights, frames, input::saw);
    }
    List<Scan> scans = KittiDataset.load(dataDir, p.generator(), p.frames());
    return new KittiSession(device, config, p, weights, Frames.of(scans), null);
  }
}
