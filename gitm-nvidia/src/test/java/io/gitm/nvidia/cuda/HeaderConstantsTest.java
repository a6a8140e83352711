package io.gitm.nvidia.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles a small C program against the CUDA toolkit's headers that prints every constant, struct size and offset
 * the driver bindings hard-code, and compares them with the Java side. Skipped where gcc or the headers are missing.
 */
class HeaderConstantsTest {
  private static final Path INCLUDE = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"),
      "include");

  /** C expression for each Java value. */
  private static Map<String, Long> javaSide() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("CU_CTX_SCHED_AUTO", (long) Cu.CU_CTX_SCHED_AUTO);
    m.put("CU_CTX_SCHED_SPIN", (long) Cu.CU_CTX_SCHED_SPIN);
    m.put("CU_CTX_SCHED_YIELD", (long) Cu.CU_CTX_SCHED_YIELD);
    m.put("CU_CTX_SCHED_BLOCKING_SYNC", (long) Cu.CU_CTX_SCHED_BLOCKING_SYNC);
    m.put("CU_STREAM_NON_BLOCKING", (long) Cu.CU_STREAM_NON_BLOCKING);
    m.put("CU_EVENT_DEFAULT", (long) Cu.CU_EVENT_DEFAULT);
    m.put("CU_EVENT_DISABLE_TIMING", (long) Cu.CU_EVENT_DISABLE_TIMING);
    m.put("CU_DEVICE_ATTRIBUTE_CLOCK_RATE", (long) Cu.CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    m.put("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", (long) Cu.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    m.put("CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE", (long) Cu.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    m.put("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", (long) Cu.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    m.put("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", (long) Cu.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    m.put("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
        (long) Cu.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    m.put("CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE",
        (long) Cu.CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
    m.put("CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE",
        (long) Cu.CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
    m.put("CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED", (long) Cu.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
    m.put("CU_FUNC_ATTRIBUTE_NUM_REGS", (long) Cu.CU_FUNC_ATTRIBUTE_NUM_REGS);
    m.put("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", (long) Cu.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    m.put("CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT",
        (long) Cu.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
    m.put("CU_LIMIT_PERSISTING_L2_CACHE_SIZE", (long) Cu.CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
    m.put("CU_MEMPOOL_ATTR_RELEASE_THRESHOLD", (long) Cu.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
    m.put("CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT", (long) Cu.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
    m.put("CU_MEMPOOL_ATTR_USED_MEM_CURRENT", (long) Cu.CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
    m.put("CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW", (long) Cu.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW);
    m.put("CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW", (long) Cu.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW);
    m.put("CU_ACCESS_PROPERTY_NORMAL", (long) Cu.CU_ACCESS_PROPERTY_NORMAL);
    m.put("CU_ACCESS_PROPERTY_STREAMING", (long) Cu.CU_ACCESS_PROPERTY_STREAMING);
    m.put("CU_ACCESS_PROPERTY_PERSISTING", (long) Cu.CU_ACCESS_PROPERTY_PERSISTING);
    m.put("CU_STREAM_CAPTURE_MODE_THREAD_LOCAL", (long) Cu.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    m.put("CUDA_ERROR_NOT_READY", (long) Cu.CUDA_ERROR_NOT_READY);
    m.put("sizeof(CUaccessPolicyWindow)", Cu.ACCESS_POLICY_WINDOW_SIZE);
    m.put("offsetof(CUaccessPolicyWindow, base_ptr)", Cu.APW_BASE_PTR);
    m.put("offsetof(CUaccessPolicyWindow, num_bytes)", Cu.APW_NUM_BYTES);
    m.put("offsetof(CUaccessPolicyWindow, hitRatio)", Cu.APW_HIT_RATIO);
    m.put("offsetof(CUaccessPolicyWindow, hitProp)", Cu.APW_HIT_PROP);
    m.put("offsetof(CUaccessPolicyWindow, missProp)", Cu.APW_MISS_PROP);
    m.put("sizeof(CUstreamAttrValue)", Cu.LAUNCH_ATTRIBUTE_VALUE_SIZE);
    m.put("offsetof(CUstreamAttrValue, accessPolicyWindow)", 0L);
    m.put("sizeof(CUuuid)", Cu.UUID_SIZE);
    m.put("sizeof(CUdeviceptr)", 8L);
    m.put("sizeof(CUdevice)", 4L);
    m.put("sizeof(size_t)", 8L);
    m.put("CUDA_R_32F", (long) io.gitm.nvidia.cublas.CublasConstants.CUDA_R_32F);
    return m;
  }

  @Test
  void driverConstantsAndLayoutsMatchCudaHeader(@TempDir Path tmp) throws Exception {
    assumeTrue(Files.isReadable(INCLUDE.resolve("cuda.h")), "no cuda.h under " + INCLUDE);
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/gcc")) || Files.isExecutable(Path.of("/usr/bin/cc")),
        "no C compiler to read the header's values with");
    Map<String, Long> java = javaSide();
    StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include <cuda.h>\n"
        + "#include <library_types.h>\nint main(void) {\n");
    for (String expr : java.keySet()) {
      c.append("  printf(\"%s=%lld\\n\", \"").append(expr.replace("\"", "\\\"")).append("\", (long long)(")
          .append(expr).append("));\n");
    }
    c.append("  return 0;\n}\n");
    Path src = Files.writeString(tmp.resolve("check.c"), c.toString());
    Path exe = tmp.resolve("check");
    String cc = Files.isExecutable(Path.of("/usr/bin/gcc")) ? "/usr/bin/gcc" : "/usr/bin/cc";
    Process p = new ProcessBuilder(cc, "-I" + INCLUDE, "-o", exe.toString(), src.toString())
        .redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("compiling the header check: %s", log).isZero();
    Map<String, Long> header = run(exe);
    assertThat(header).containsExactlyInAnyOrderEntriesOf(java);
  }

  private static Map<String, Long> run(Path exe) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    Map<String, Long> m = new LinkedHashMap<>();
    for (String line : out.split("\n")) {
      int i = line.lastIndexOf('=');
      if (i > 0) {
        m.put(line.substring(0, i), Long.parseLong(line.substring(i + 1).trim()));
      }
    }
    return m;
  }

  @Test
  void uuidBytesFormatLikeNvidiaSmi() {
    byte[] b = new byte[16];
    for (int i = 0; i < 16; i++) {
      b[i] = (byte) (0xa0 + i);
    }
    assertThat(CudaDriver.formatUuid(b)).isEqualTo("GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf");
  }
}
