package io.gitm.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class DeclaredWorkTest {
  static KernelRecord kernel(String name, int stream, long corr, long start) {
    return new KernelRecord(name, 0, stream, corr, start, start + 10, new Dim3(1, 1, 1), new Dim3(32, 1, 1), 32, 0, 0);
  }

  static WorkRecord work(String name, int stream, long corr, long time, double flops) {
    return WorkRecord.of(name, 0, stream, corr, time, new Work(flops, Precision.FP32, 0, 0, 0, 0));
  }

  @Test
  void theSimulatorsWorkIsMatchedByCorrelationId() {
    KernelRecord a = kernel("k", 7, 5, 100);
    KernelRecord b = kernel("k", 7, 6, 200);
    Function<KernelRecord, Work> w = DeclaredWork.of(List.of(work("k", 7, 6, 1, 2), a, b, work("k", 7, 5, 0, 1)));
    assertThat(w.apply(a).flops()).isEqualTo(1);
    assertThat(w.apply(b).flops()).isEqualTo(2);
  }

  @Test
  void workWithoutCorrelationIsMatchedByOrderPerKernelNameAndStream() {
    // CUPTI's executions carry correlation ids the facade never saw: the n-th declaration of a name on a stream is
    // the n-th execution of that name on that stream, whatever runs on other streams or under other names meanwhile
    KernelRecord k1 = kernel("k", 7, 901, 100);
    KernelRecord other = kernel("k", 13, 902, 150);
    KernelRecord lib = kernel("sm90_xmma_gemm", 7, 903, 170);
    KernelRecord k2 = kernel("k", 7, 904, 200);
    Function<KernelRecord, Work> w = DeclaredWork.of(List.of(k2, lib, other, k1, work("k", 7, 0, 10, 1),
        work("k", 13, 0, 20, 30), work("k", 7, 0, 40, 2)));
    assertThat(w.apply(k1).flops()).isEqualTo(1);
    assertThat(w.apply(k2).flops()).isEqualTo(2);
    assertThat(w.apply(other).flops()).isEqualTo(30);
    assertThat(w.apply(lib)).as("a library kernel declares nothing").isNull();
  }

  @Test
  void declarationsWrittenOutOfOrderAreMatchedInTheOrderTheyWereMade() {
    KernelRecord k1 = kernel("k", 7, 901, 100);
    KernelRecord k2 = kernel("k", 7, 902, 200);
    Function<KernelRecord, Work> w = DeclaredWork.of(List.of(work("k", 7, 0, 40, 2), k1, k2, work("k", 7, 0, 10, 1)));
    assertThat(w.apply(k1).flops()).isEqualTo(1);
    assertThat(w.apply(k2).flops()).isEqualTo(2);
  }
}
