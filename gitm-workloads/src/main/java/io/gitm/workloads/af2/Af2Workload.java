package io.gitm.workloads.af2;

import io.gitm.device.Device;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.InputFingerprint;
import io.gitm.workload.Knob;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadInput;
import io.gitm.workload.WorkloadSpec;
import io.gitm.workloads.kit.DeviceDefaults;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code af2}: AlphaFold2-style Evoformer inference. Each step embeds one multiple sequence alignment (the MSA
 * representation from one-hot features, the pair representation from the query and relative positions) and runs
 * the Evoformer blocks over it (MSA row attention with pair bias, column attention, transition, outer product mean,
 * triangle multiplications, triangle attentions, pair transition), then projects the single representation; its
 * output is the single and pair representations. Linear layers are cuBLAS GEMMs, the rest kernels of its own.
 * Metric: residues per second; extra per step: the most device memory it held ({@code peakDeviceBytes}).
 *
 * <p>The shipped configuration is what a straightforward port does: every temporary allocated and freed around its
 * operation, default (FP32) math, full attention (no chunking), one stream. See {@code docs/af2.md}.
 */
public final class Af2Workload implements Workload {
  /** The kernel family whose variants are the attention's memory plans: all rows at once, or a few at a time. */
  static final String ATTENTION_FAMILY = "af2_attention";
  static final List<String> ATTENTION_VARIANTS = List.of("full", "chunked");
  /**
   * Largest relative difference of the output values under class-B levers (TF32 or BF16 GEMMs), each judged against
   * max(1, |a|, |b|) ({@link Af2Output#FLOOR}).
   */
  static final double OUTPUT_TOLERANCE = 5e-2;
  /** System property read by {@link #Af2Workload()}: {@link Params#parse} settings over the device's defaults. */
  public static final String PROPERTY = "gitm.af2";

  /**
   * What the workload runs.
   *
   * @param nRes residues of a generated alignment (a given input's query decides its own)
   * @param nSeq alignment rows used: the first {@code nSeq} distinct rows of the input (a generated one has exactly
   *     this many)
   * @param msaChannels c_m; {@code pairChannels} c_z; {@code blocks}; the heads; the outer product mean's,
   *     triangle multiplication's and transitions' widths; c_s: the architecture when the weights are seeded (a
   *     parameter file's shapes decide otherwise)
   * @param chunkRows batch rows per attention launch in the {@code chunked} variant (AlphaFold's subbatch size, 4)
   * @param seed the generated alignment's seed
   * @param weightSeed the seeded weights' seed
   * @param input a pinned {@code .a3m} or {@code .fasta} file in the data folder to infer instead of a generated one
   *     (null: generated)
   * @param weights an AlphaFold2 monomer parameter file ({@code params_model_N.npz}) to load instead of seeded
   *     weights (null: seeded)
   */
  public record Params(int nRes, int nSeq, int msaChannels, int pairChannels, int blocks, int msaHeads, int pairHeads,
      int outerChannels, int triangleChannels, int transitionFactor, int singleChannels, int chunkRows, long seed,
      long weightSeed, String input, String weights) {
    public Params {
      if (nRes < 1 || nRes > 4096 || nSeq < 1 || nSeq > 65536) {
        throw new IllegalArgumentException("af2: nRes must be 1..4096 and nSeq 1..65536, got " + nRes + " and " + nSeq);
      }
      if (chunkRows < 1) {
        throw new IllegalArgumentException("af2: chunkRows must be at least 1, got " + chunkRows);
      }
      dims(msaChannels, pairChannels, blocks, msaHeads, pairHeads, outerChannels, triangleChannels, transitionFactor,
          singleChannels);
    }

    private static Dims dims(int cm, int cz, int blocks, int hm, int hz, int co, int ct, int factor, int cs) {
      return new Dims(cm, cz, blocks, hm, hz, co, ct, factor, cs);
    }

    Dims dims() {
      return dims(msaChannels, pairChannels, blocks, msaHeads, pairHeads, outerChannels, triangleChannels,
          transitionFactor, singleChannels);
    }

    /**
     * For a real GPU: AlphaFold2's monomer Evoformer (48 blocks, c_m 256, c_z 128) on a 384-residue protein with 512
     * alignment rows, about 50 TFLOP per inference: seconds on an H200.
     */
    public static Params h200() {
      Dims d = Dims.alphafold2();
      return new Params(384, 512, d.msaChannels(), d.pairChannels(), d.blocks(), d.msaHeads(), d.pairHeads(),
          d.outerChannels(), d.triangleChannels(), d.transitionFactor(), d.singleChannels(), 4, 20261130L, 7L, null,
          null);
    }

    /**
     * For the simulated device, which runs every kernel and GEMM as Java on the host: the same architecture scaled
     * down (2 blocks, c_m 32, c_z 16, heads of 8, 32 residues, 16 rows) so that an inference emulates in about a
     * tenth of a second on this build machine's cores.
     */
    public static Params simulated() {
      return new Params(32, 16, 32, 16, 2, 4, 2, 8, 16, 4, 48, 4, 20261130L, 7L, null, null);
    }

    /**
     * These parameters with the settings of {@code spec} applied: comma-separated {@code key=value} pairs, keys as the
     * record's components ({@code nRes=256,nSeq=128,blocks=8,weights=/data/params_model_1.npz}).
     */
    public Params parse(String spec) {
      return Af2Settings.apply(this, spec);
    }

    /** The data file's name: the given input, or the generated alignment's. */
    String inputName() {
      return input != null ? input
          : String.format(Locale.ROOT, "af2-msa-g%d-s%d-r%d-n%d.a3m", MsaGenerator.VERSION, seed, nRes, nSeq);
    }
  }

  private final DeviceDefaults<Params> params;
  /** The user's target, or null for the generated alignment (or {@link Params#input}). */
  private final Af2Input input;
  private Weights weights;
  private Params weightsFor;

  /**
   * The workload with the device's defaults ({@link Params#h200} on a real GPU, {@link Params#simulated} on the
   * simulated device), changed by the settings in system property {@value #PROPERTY} when set.
   */
  public Af2Workload() {
    this(DeviceDefaults.fromProperty(PROPERTY, Params::simulated, Params::h200, Params::parse), null);
  }

  public Af2Workload(Params params) {
    this(DeviceDefaults.fixed(params, "af2"), null);
  }

  private Af2Workload(DeviceDefaults<Params> params, Af2Input input) {
    this.params = params;
    this.input = input;
  }

  @Override
  public Workload withInput(WorkloadInput in) {
    return new Af2Workload(params, Af2Input.of(in));
  }

  @Override
  public List<String> inputFormats() {
    return Af2Input.FORMATS;
  }

  @Override
  public Optional<InputFingerprint> input() {
    return input == null ? Optional.empty() : input.fingerprint();
  }

  /** The parameters a session on {@code device} runs with. */
  public Params params(Device device) {
    return params.on(device);
  }

  @Override
  public WorkloadSpec spec() {
    return new WorkloadSpec("af2",
        "AlphaFold2-style Evoformer inference: MSA and pair representations through attention with pair bias,"
            + " triangle multiplicative updates and triangle attention (large cuBLAS GEMMs, memory-heavy pair tensor)",
        List.of(Af2Kernels.MODULE), knobs(), Map.of(ATTENTION_FAMILY, ATTENTION_VARIANTS), OUTPUT_TOLERANCE,
        "residues/s", true);
  }

  static Set<Knob> knobs() {
    return EnumSet.of(Knob.HOST_MEMORY, Knob.ALLOCATION, Knob.STREAMS, Knob.ASYNC_COPIES, Knob.GRAPH_CAPTURE,
        Knob.KERNEL_VARIANT, Knob.MATH_MODE, Knob.WARMUP);
  }

  @Override
  public Session open(Device device, ExecutionConfig config, Path dataDir) {
    Af2Session.check(config);
    if (device == null || dataDir == null) {
      throw new IllegalArgumentException("af2: open needs a device and a data directory (datasets/biotech/)");
    }
    Params p = params(device);
    if (input != null) {
      return new Af2Session(device, config, weights(p), input.modelFeatures(dataDir, p.nSeq()), p.chunkRows(), false);
    }
    Msa msa = Af2Dataset.load(dataDir, p.inputName(), p.input() != null ? null
        : () -> new MsaGenerator(p.seed(), p.nRes(), p.nSeq()).generate());
    return new Af2Session(device, config, weights(p), msa.features(p.nSeq()), p.chunkRows(), false);
  }

  /** The weights for {@code p}: loaded or drawn once, kept for the next session with the same parameters. */
  synchronized Weights weights(Params p) {
    if (weights == null || !p.equals(weightsFor)) {
      weights = p.weights() != null ? Weights.load(Path.of(p.weights())) : Weights.seeded(p.dims(), p.weightSeed());
      weightsFor = p;
    }
    return weights;
  }
}
