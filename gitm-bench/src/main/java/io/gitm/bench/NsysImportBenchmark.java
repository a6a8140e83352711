package io.gitm.bench;

import io.gitm.tracer.NsysImporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
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
import org.sqlite.SQLiteConfig;

/**
 * Importing an Nsight Systems SQLite export (schema 3.x) of {@value #KERNELS} kernels, each with the runtime call that
 * launched it, into a {@code .gtrace} file. The score is rows per second: each invocation opens the export, reads its
 * schema and both tables in start order, and writes and publishes the trace.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
public class NsysImportBenchmark {
  static final int KERNELS = 200_000;
  private static final String[] NAMES = {
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel"
          + "__5x_cublas",
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
          + "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
          + "at::detail::Array<char*, 3>)",
      "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
      "triton_poi_fused__to_copy_add_mul_rsqrt_0"};

  private Path dir;
  private Path export;
  private Path out;

  @Setup(Level.Trial)
  public void writeExport() throws IOException, SQLException {
    dir = Files.createTempDirectory("gitm-nsys-import");
    export = dir.resolve("bench.sqlite");
    out = dir.resolve("bench.gtrace");
    write(export, KERNELS);
  }

  /** Writes an export of {@code kernels} kernels and their launches, in the 3.x layout. */
  static void write(Path file, int kernels) throws SQLException {
    try (Connection c = new SQLiteConfig().createConnection("jdbc:sqlite:" + file.toAbsolutePath());
        Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE META_DATA_EXPORT(name TEXT NOT NULL, value TEXT)");
      s.executeUpdate("INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION', '3.11.1')");
      s.executeUpdate("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
      s.executeUpdate("CREATE TABLE TARGET_INFO_GPU(id INTEGER NOT NULL, name TEXT, smCount INTEGER)");
      s.executeUpdate("INSERT INTO TARGET_INFO_GPU VALUES(0, 'NVIDIA H200', 132)");
      s.executeUpdate("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL,"
          + " deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, demangledName INTEGER,"
          + " shortName INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER,"
          + " blockX INTEGER, blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER,"
          + " dynamicSharedMemory INTEGER)");
      s.executeUpdate("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL,"
          + " globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL)");
      c.setAutoCommit(false);
      try (PreparedStatement str = c.prepareStatement("INSERT INTO StringIds VALUES(?, ?)")) {
        for (int i = 0; i < NAMES.length; i++) {
          str.setInt(1, i + 1);
          str.setString(2, NAMES[i]);
          str.executeUpdate();
        }
        str.setInt(1, NAMES.length + 1);
        str.setString(2, "cudaLaunchKernel");
        str.executeUpdate();
      }
      try (PreparedStatement k = c.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(?, ?, 0, ?, ?, ?,"
          + " ?, 64, 132, 1, 1, 256, 1, 1, 0, 4096)");
          PreparedStatement r = c.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?, ?, ?, ?, ?)")) {
        long t = 1_000_000;
        for (int i = 0; i < kernels; i++) {
          long dur = 2_000 + (i * 7919L) % 50_000;
          r.setLong(1, t - 1_500);
          r.setLong(2, t - 500);
          r.setLong(3, (4242L << 24) | 4242);
          r.setLong(4, i + 1);
          r.setInt(5, NAMES.length + 1);
          r.addBatch();
          k.setLong(1, t);
          k.setLong(2, t + dur);
          k.setInt(3, 7 + i % 4);
          k.setLong(4, i + 1);
          k.setInt(5, 1 + i % NAMES.length);
          k.setInt(6, 1 + i % NAMES.length);
          k.addBatch();
          if (i % 10_000 == 9_999) {
            r.executeBatch();
            k.executeBatch();
          }
          t += dur / 2 + 500;
        }
        r.executeBatch();
        k.executeBatch();
      }
      c.commit();
    }
  }

  @TearDown(Level.Trial)
  public void deleteFiles() throws IOException {
    Files.deleteIfExists(out);
    Files.deleteIfExists(export);
    Files.deleteIfExists(dir);
  }

  /** Imports the whole export. */
  @Benchmark
  @OperationsPerInvocation(2 * KERNELS)
  public long importAll() throws IOException {
    return NsysImporter.importTrace(export, out).rows();
  }
}
