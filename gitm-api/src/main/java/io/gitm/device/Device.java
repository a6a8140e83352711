package io.gitm.device;

import io.gitm.api.Ticker;
import java.util.Optional;

/**
 * The runtime facade: one opened device and its context. Every call may throw {@link DeviceException}. Closing the
 * device frees what was allocated through it.
 */
public interface Device extends AutoCloseable {
  /**
   * What a simulated device knows that a real one cannot: the faults it injected, its preset and its seed (written
   * beside a run for scoring, never read by the analysis). Empty on a real device.
   */
  default Optional<Record> groundTruth() {
    return Optional.empty();
  }

  DeviceInfo info();

  /** The host clock as this device sees it: the real monotonic clock, or the simulator's simulated host time. */
  Ticker clock();

  Stream defaultStream();

  /** A new non-blocking stream; lower numbers are higher priority, within the range in {@link DeviceInfo}. */
  Stream createStream(int priority);

  Event createEvent(boolean timing);

  /** Plain device allocation ({@code cuMemAlloc}): may synchronize the device and costs host time. */
  DeviceMemory malloc(long bytes);

  /** Stream-ordered allocation from the default pool ({@code cuMemAllocAsync}). */
  DeviceMemory mallocAsync(long bytes, Stream stream);

  /** Stream-ordered free of pooled or plain memory ({@code cuMemFreeAsync}). */
  void freeAsync(DeviceMemory memory, Stream stream);

  MemPool defaultPool();

  HostMemory allocHost(long bytes, HostMemoryKind kind);

  /** Copies synchronously with the host. */
  void copy(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes);

  /** Queues a copy on {@code stream}; with pageable host memory the driver stages it and the host waits. */
  void copyAsync(Buffer dst, long dstOffset, Buffer src, long srcOffset, long bytes, Stream stream);

  void memsetAsync(DeviceMemory dst, long offset, int byteValue, long bytes, Stream stream);

  Module load(KernelModule module);

  /** Queues a launch; args are {@link DeviceMemory}, {@link Integer}, {@link Long}, {@link Float} or {@link Double}. */
  void launch(Kernel kernel, LaunchConfig config, Stream stream, Object... args);

  /** Starts capturing {@code stream}'s work into a graph instead of running it. */
  void beginCapture(Stream stream);

  /** Ends the capture and instantiates the graph. */
  GraphExec endCapture(Stream stream);

  void launchGraph(GraphExec graph, Stream stream);

  /** Blocks the host until the whole device is idle. */
  void synchronize();

  MemInfo memInfo();

  /** Blocks of {@code kernel} that fit on one multiprocessor at {@code blockSize} threads. */
  int maxActiveBlocksPerMultiprocessor(Kernel kernel, int blockSize, int dynamicSharedBytes);

  /** The block size that maximizes occupancy for {@code kernel}. */
  int suggestedBlockSize(Kernel kernel, int dynamicSharedBytes);

  /**
   * Marks {@code bytes} of {@code memory} from {@code offset} as persisting in L2 for work on {@code stream}, with
   * the given hit ratio; {@code bytes == 0} clears the window.
   */
  void setL2AccessWindow(Stream stream, DeviceMemory memory, long offset, long bytes, float hitRatio);

  Blas blas();

  StateSampler sampler();

  EventTracer tracer();

  @Override
  void close();
}
