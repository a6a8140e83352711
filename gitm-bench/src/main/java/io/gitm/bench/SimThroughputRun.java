package io.gitm.bench;

/**
 * The loop of {@link SimThroughputBenchmark} run directly for a stretch of simulated time, outside JMH:
 * {@code java -cp gitm-bench/target/gitm-bench.jar io.gitm.bench.SimThroughputRun [simulatedSeconds] [copyBytes]}
 * prints the wall time and simulated seconds per wall second (defaults: 600 s, 4096 bytes).
 */
public final class SimThroughputRun {
  private SimThroughputRun() {
  }

  public static void main(String[] args) {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 600;
    int copyBytes = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
    if (seconds <= 0 || copyBytes <= 0) {
      throw new IllegalArgumentException(
          "simulated seconds and copy bytes must be positive: " + seconds + ", " + copyBytes);
    }
    SimThroughputBenchmark b = new SimThroughputBenchmark();
    b.kernels = 8;
    b.copyBytes = copyBytes;
    b.faults = "";
    b.open();
    long t0 = System.nanoTime();
    long simulated = 0;
    for (long i = 0; i < seconds * 10; i++) {
      simulated = b.simulate100ms();
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    b.close();
    System.out.printf("copyBytes %d: %.1f simulated s in %.2f s wall: %.1f simulated s per wall s%n", copyBytes,
        simulated / 1e9, wall, simulated / 1e9 / wall);
  }
}
