package io.gitm.workloads.af2;

import static org.assertj.core.api.Assertions.assertThat;

import io.gitm.device.MathMode;
import io.gitm.trace.Work;
import io.gitm.workloads.af2.Program.Gemm;
import io.gitm.workloads.af2.Program.Launch;
import org.junit.jupiter.api.Test;

/**
 * The inference's program has AlphaFold2's linear layers, declares work for every operation, and chunks memory only.
 */
class ProgramTest {
  static final Af2Workload.Params P = Af2EquivalenceTest.SMALL;

  static Program program(Af2Workload.Params p, int chunk) {
    return new Evoformer(Weights.seeded(p.dims(), p.weightSeed()), p.nRes(), p.nSeq(), chunk).program();
  }

  /**
   * Flops of AlphaFold2's linear layers for these sizes, from the architecture (Algorithms 3-15, 2 per multiply-add).
   */
  static double linearFlops(Af2Workload.Params p) {
    double s = p.nSeq();
    double r = p.nRes();
    double cm = p.msaChannels();
    double cz = p.pairChannels();
    double co = p.outerChannels();
    double ct = p.triangleChannels();
    double f = p.transitionFactor();
    double sr = s * r;
    double rr = r * r;
    double embed = 2 * sr * 49 * cm + 2 * r * 22 * (cm + 2 * cz) + 2 * rr * 65 * cz;
    double row = 2 * sr * cm * cm * 5 + 2 * rr * cz * p.msaHeads();
    double column = 2 * sr * cm * cm * 5;
    double msaTransition = 2 * 2 * sr * cm * f * cm;
    double outer = 2 * 2 * sr * cm * co + 2 * (r * co) * (r * co) * s + 2 * rr * co * co * cz;
    double triangleMultiplication = 2 * rr * cz * ct * 4 + 2 * rr * cz * cz + 2 * rr * ct * cz;
    double triangleAttention = 2 * rr * cz * cz * 5 + 2 * rr * cz * p.pairHeads();
    double pairTransition = 2 * 2 * rr * cz * f * cz;
    double block = row + column + msaTransition + outer + 2 * triangleMultiplication + 2 * triangleAttention
        + pairTransition;
    return embed + p.blocks() * block + 2 * r * cm * p.singleChannels();
  }

  @Test
  void gemmsAreAlphaFold2sLinearLayers() {
    Program program = program(P, 0);
    double flops = program.ops().stream().filter(o -> o instanceof Gemm).mapToDouble(o -> {
      Gemm g = (Gemm) o;
      return 2.0 * g.m() * g.n() * g.k();
    }).sum();
    assertThat(flops).isEqualTo(linearFlops(P));
  }

  @Test
  void everyLaunchDeclaresWorkAndTheProgramsTotalIsTheirSum() {
    Program program = program(P, 0);
    double flops = 0;
    for (Program.Op op : program.ops()) {
      if (op instanceof Launch l) {
        Work w = l.kernel().work().apply(l.launch(), l.args());
        assertThat(w.bytesWritten()).as(l.kernel().entry()).isPositive();
        flops += w.flops();
      }
    }
    double[] total = program.work(MathMode.DEFAULT);
    assertThat(total[0]).isEqualTo(flops + linearFlops(P));
  }

  @Test
  void chunkingChangesLaunchesAndMemoryButNotTheArithmetic() {
    Program full = program(P, 0);
    Program chunked = program(P, 2);
    assertThat(chunked.launches()).isGreaterThan(full.launches());
    double[] a = full.work(MathMode.DEFAULT);
    double[] b = chunked.work(MathMode.DEFAULT);
    assertThat(b[0]).as("flops").isEqualTo(a[0]);
    assertThat(b[1]).as("bytes read: each chunk reads the pair bias again").isGreaterThan(a[1]);
    assertThat(b[2]).as("bytes written").isEqualTo(a[2]);
    assertThat(chunked.peakBytes()).isLessThanOrEqualTo(full.peakBytes());
  }

  @Test
  void atAlphaFoldsSizesChunkedAttentionCutsThePeakByTheFullLogits() {
    // one block of AlphaFold2's monomer model on 384 residues and 512 rows: the row attention's logits, 512 rows x 8
    // heads x 384 x 384 floats, are the largest temporary; AlphaFold's subbatches of 4 rows hold 4 rows of them
    Af2Workload.Params one = Af2Workload.Params.h200().parse("blocks=1");
    Program full = program(one, 0);
    Program chunked = program(one, one.chunkRows());
    long logits = 4L * one.nSeq() * one.msaHeads() * one.nRes() * one.nRes();
    assertThat(full.peakBytes()).isGreaterThan(logits);
    assertThat(chunked.peakBytes()).isLessThan(full.peakBytes() - logits / 2);
  }

  @Test
  void noTemporaryOutlivesTheInference() {
    Program program = program(P, 3);
    long allocs = program.ops().stream().filter(o -> o instanceof Program.Alloc).count();
    long frees = program.ops().stream().filter(o -> o instanceof Program.Free).count();
    assertThat(allocs).isEqualTo(frees).isPositive();
    assertThat(program.live()).isEmpty();
  }
}
