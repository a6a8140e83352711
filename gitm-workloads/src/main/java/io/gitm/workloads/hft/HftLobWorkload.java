package io.gitm.workloads.hft;

import io.gitm.device.Device;
import io.gitm.workload.ExecutionConfig;
import io.gitm.workload.InputFingerprint;
import io.gitm.workload.Knob;
import io.gitm.workload.Workload;
import io.gitm.workload.WorkloadInput;
import io.gitm.workload.WorkloadSpec;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code hft-lob}: limit-order-book reconstruction from Nasdaq TotalView-ITCH 5.0 messages, per-instrument
 * features and a small MLP signal, batch by batch on the GPU. Per batch: decode the raw messages, route them by
 * instrument (a stable counting sort), apply them to each instrument's book in order (one thread per instrument),
 * compute features after every input batch, run the MLP. Output: the top 10 levels of each book, the features and
 * the signals after every input batch.
 */
public final class HftLobWorkload implements Workload {

  /** Largest relative difference of the signals allowed between two runs (books and features are exact). */
  static final double SIGNAL_TOLERANCE = 1e-4;

  /**
   * What the workload runs on.
   *
   * @param seed the generator's seed (for a generated dataset)
   * @param instruments stocks in a generated dataset
   * @param bookMessages book messages in a generated dataset
   * @param batchMessages messages per input batch
   * @param logOrderSlots each instrument's order table holds 2^logOrderSlots - 1 live orders
   * @param levels price levels each side of a book holds
   * @param weightSeed seed of the MLP's weights
   * @param dataset file name of a pinned dataset to read instead of generating one (null: generated)
   */
  public record Params(long seed, int instruments, int bookMessages, int batchMessages, int logOrderSlots,
      int levels, long weightSeed, String dataset) {
    public Params {
      if (batchMessages < 1 || batchMessages > 1 << 22) {
        throw new IllegalArgumentException("hft-lob: batchMessages must be 1..4194304, got " + batchMessages);
      }
      if (logOrderSlots < 1 || logOrderSlots > 20) {
        throw new IllegalArgumentException("hft-lob: logOrderSlots must be 1..20, got " + logOrderSlots);
      }
      if (levels < 10 || levels > 4096) {
        throw new IllegalArgumentException("hft-lob: levels must be 10..4096, got " + levels);
      }
      if (instruments < 1 || instruments > 65535 || bookMessages < 0) {
        throw new IllegalArgumentException("hft-lob: instruments must be 1..65535 and bookMessages >= 0");
      }
    }

    /** 4096 instruments, 2 million book messages, batches of 16384 messages. */
    public static Params defaults() {
      return new Params(20261129L, 4096, 2_000_000, 16384, 10, 128, 7L, null);
    }

    public Params withData(long seed, int instruments, int bookMessages) {
      return new Params(seed, instruments, bookMessages, batchMessages, logOrderSlots, levels, weightSeed, dataset);
    }

    public Params withBatchMessages(int v) {
      return new Params(seed, instruments, bookMessages, v, logOrderSlots, levels, weightSeed, dataset);
    }

    String datasetName() {
      return dataset != null ? dataset
          : "itch50-g" + ItchGenerator.VERSION + "-s" + seed + "-n" + instruments + "-m" + bookMessages + ".itch";
    }
  }

  private final Params params;
  /** The user's input and how to read it, or null for the generated dataset. */
  private final HftInput input;

  public HftLobWorkload() {
    this(Params.defaults());
  }

  public HftLobWorkload(Params params) {
    this(params, null);
  }

  private HftLobWorkload(Params params, HftInput input) {
    this.params = params;
    this.input = input;
  }

  @Override
  public Workload withInput(WorkloadInput in) {
    return new HftLobWorkload(params, HftInput.of(in));
  }

  @Override
  public List<String> inputFormats() {
    return HftInput.FORMATS;
  }

  @Override
  public Optional<InputFingerprint> input() {
    return input == null ? Optional.empty() : input.fingerprint();
  }

  public Params params() {
    return params;
  }

  @Override
  public WorkloadSpec spec() {
    return new WorkloadSpec("hft-lob",
        "Limit-order-book reconstruction from ITCH 5.0 messages, per-instrument features and an MLP signal, batch by"
            + " batch (many small kernels, host-to-device traffic every batch, latency-bound)",
        List.of(LobKernels.MODULE), knobs(), Map.of(LobKernels.BOOK_FAMILY, LobKernels.BOOK_VARIANTS), SIGNAL_TOLERANCE,
        "messages/s", true);
  }

  static Set<Knob> knobs() {
    return EnumSet.of(Knob.HOST_MEMORY, Knob.ALLOCATION, Knob.STREAMS, Knob.ASYNC_COPIES, Knob.COPY_COMPUTE_OVERLAP,
        Knob.STREAM_PRIORITY, Knob.GRAPH_CAPTURE, Knob.BLOCK_SIZE, Knob.KERNEL_VARIANT, Knob.L2_PERSIST,
        Knob.SHARED_CARVEOUT, Knob.BATCH_COALESCE);
  }

  @Override
  public Session open(Device device, ExecutionConfig config, Path dataDir) {
    LobSession.check(config);
    if (device == null || dataDir == null) {
      throw new IllegalArgumentException("hft-lob: open needs a device and a data directory (datasets/hft/)");
    }
    if (input != null) {
      ItchInput in = input.scanned();
      return new LobSession(device, config, input.sized(params, in), in);
    }
    HftDataset.Loaded data = HftDataset.load(dataDir, params.datasetName(), params.dataset() != null ? null
        : () -> ItchGenerator.of(params.seed(), params.instruments(), params.bookMessages()).generate());
    return new LobSession(device, config, params, data.itch());
  }
}
