package io.gitm.bench;

import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.Dim3;
import io.gitm.trace.KernelRecord;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import io.gitm.trace.TraceRecord;
import io.gitm.tracer.TraceReader;
import io.gitm.tracer.TraceWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Reading a {@code .gtrace} file of one million kernel records, the tracer's ingest rate (goal: at least one million
 * records per second on the 2-core development machine). The score is records per second: each invocation reads the
 * whole file, from open to the end marker, CRC checks and record construction included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class TraceIngestBenchmark {
  static final int RECORDS = 1_000_000;

  /** Kernel names as a PyTorch training step on an H200 shows them: cuBLAS GEMMs, ATen element-wise, NCCL. */
  private static final List<String> NAMES = List.of(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel"
          + "__5x_cublas",
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
          + "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
          + "at::detail::Array<char*, 3>)",
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
          + "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
          + "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
          + "float>, unsigned int, float, 4>)",
      "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, true>",
      "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
      "triton_poi_fused__to_copy_add_mul_rsqrt_0",
      "void at::native::elementwise_kernel<128, 2>(int, "
          + "at::native::gpu_kernel_impl_nocast<at::native::FillFunctor<float> >)");

  private Path dir;
  private Path file;

  @Setup(Level.Trial)
  public void writeTrace() throws IOException {
    dir = Files.createTempDirectory("gitm-trace-ingest");
    file = dir.resolve("ingest.gtrace");
    TraceMeta meta = new TraceMeta("bench", ClockDomain.HOST_MONOTONIC,
        List.of(new TraceDevice(0, "NVIDIA H200", "", DeviceKind.REAL)), Map.of());
    Dim3[] grids = {new Dim3(132, 1, 1), new Dim3(1024, 1, 1), new Dim3(64, 32, 1)};
    Dim3[] blocks = {new Dim3(128, 1, 1), new Dim3(256, 1, 1), new Dim3(512, 1, 1)};
    try (TraceWriter w = TraceWriter.create(file, meta)) {
      long t = 1_000_000_000L;
      for (int i = 0; i < RECORDS; i++) {
        long dur = 2_000 + (i * 7919L) % 50_000;
        w.write(new KernelRecord(NAMES.get(i % NAMES.size()), 0, 7 + i % 4, i + 1L, t, t + dur, grids[i % 3],
            blocks[(i / 3) % 3], 32 + i % 96, 0, (i % 5) * 1024));
        t += dur / 2 + 500;
      }
    }
    long n;
    try (TraceReader r = TraceReader.open(file)) {
      n = r.read(rec -> {});
    }
    if (n != RECORDS) {
      throw new IllegalStateException("wrote " + RECORDS + " records, read " + n);
    }
  }

  @TearDown(Level.Trial)
  public void deleteTrace() throws IOException {
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
  }

  /** Reads every record through the visitor. */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public long readAll(Blackhole bh) throws IOException {
    try (TraceReader r = TraceReader.open(file)) {
      return r.read(bh::consume);
    }
  }

  /** Reads every record through the iterator. */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public long iterateAll(Blackhole bh) throws IOException {
    long n = 0;
    try (TraceReader r = TraceReader.open(file)) {
      for (TraceRecord rec : r) {
        bh.consume(rec);
        n++;
      }
    }
    return n;
  }
}
