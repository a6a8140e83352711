package io.gitm.workloads.af2;

import io.gitm.device.Blas;
import io.gitm.device.KernelDef;
import io.gitm.device.LaunchConfig;
import io.gitm.device.MathMode;
import io.gitm.trace.Work;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One inference as a fixed list of device operations over symbolic buffers: kernel launches, GEMMs, and the points
 * where a straightforward port allocates and frees its temporaries. A session executes the list under its
 * {@link io.gitm.workload.ExecutionConfig}: it decides what an allocation is (a {@code cuMemAlloc}, a pool allocation,
 * or a slot of a workspace made once), which stream each lane of a fork runs on, and whether the whole is captured
 * as a graph; the operations themselves, and so the results, do not change.
 *
 * <p>A fork opens {@code lanes} independent branches: the operations that follow carry their lane until the join.
 * Lane 0 continues on the main stream; the others may run on other streams, ordered after everything before the
 * fork, and the main stream waits for all of them at the join.
 */
final class Program {
  /** What a buffer holds and how long it lives. */
  enum Kind {
    /** A parameter: uploaded once when the session opens. */
    PARAM,
    /** Inputs, the representations and the outputs: allocated when the session opens, reused every inference. */
    STATE,
    /** A temporary: allocated and freed within one inference. */
    TEMP
  }

  /** A device buffer of the program. Temporaries with the same tag never live at the same time. */
  static final class Buf {
    final int id;
    final String tag;
    final long bytes;
    final Kind kind;
    /** For a parameter, the values to upload. */
    final float[] values;

    private Buf(int id, String tag, long bytes, Kind kind, float[] values) {
      this.id = id;
      this.tag = tag;
      this.bytes = bytes;
      this.kind = kind;
      this.values = values;
    }

    @Override
    public String toString() {
      return tag + "#" + id + "(" + kind + ", " + bytes + " B)";
    }
  }

  sealed interface Op permits Launch, Gemm, Alloc, Free, Fork, Join {
  }

  /** A kernel launch; {@code args} are {@link Buf}s, {@link Integer}s and {@link Float}s. */
  record Launch(KernelDef kernel, LaunchConfig launch, Object[] args, int lane) implements Op {
  }

  /** {@code C = op(A) op(B)} in column-major terms (cuBLAS's), alpha 1 and beta 0. */
  record Gemm(boolean transA, boolean transB, int m, int n, int k, Buf a, int lda, Buf b, int ldb, Buf c, int ldc,
      int lane) implements Op {
  }

  record Alloc(Buf buf, int lane) implements Op {
  }

  record Free(Buf buf, int lane) implements Op {
  }

  record Fork(int lanes) implements Op {
  }

  record Join() implements Op {
  }

  private final List<Buf> bufs = new ArrayList<>();
  private final List<Op> ops = new ArrayList<>();
  private final Map<String, Buf> liveTags = new HashMap<>();
  private int lanes;
  private int lane;

  List<Buf> bufs() {
    return Collections.unmodifiableList(bufs);
  }

  List<Op> ops() {
    return Collections.unmodifiableList(ops);
  }

  // ------------------------------------------------------------------------------------------------- building

  Buf param(String tag, float[] values) {
    Buf b = new Buf(bufs.size(), tag, 4L * values.length, Kind.PARAM, values);
    bufs.add(b);
    return b;
  }

  Buf state(String tag, long bytes) {
    Buf b = new Buf(bufs.size(), tag, bytes, Kind.STATE, null);
    bufs.add(b);
    return b;
  }

  /** A temporary of {@code floats} floats, allocated here on the current lane. */
  Buf temp(String tag, long floats) {
    if (liveTags.containsKey(tag)) {
      throw new IllegalStateException("af2: temporary '" + tag + "' allocated while another is live");
    }
    if (floats < 1 || floats > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("af2: temporary '" + tag + "' of " + floats + " floats: a tensor holds 1.."
          + Integer.MAX_VALUE + " elements");
    }
    Buf b = new Buf(bufs.size(), tag, 4 * floats, Kind.TEMP, null);
    bufs.add(b);
    liveTags.put(tag, b);
    ops.add(new Alloc(b, lane));
    return b;
  }

  /** Frees temporaries on the current lane. */
  void free(Buf... temps) {
    for (Buf b : temps) {
      if (b.kind != Kind.TEMP || liveTags.get(b.tag) != b) {
        throw new IllegalStateException("af2: free of " + b + ", which is not a live temporary");
      }
      liveTags.remove(b.tag);
      ops.add(new Free(b, lane));
    }
  }

  void launch(KernelDef kernel, LaunchConfig launch, Object... args) {
    ops.add(new Launch(kernel, launch, args, lane));
  }

  void gemm(boolean transA, boolean transB, int m, int n, int k, Buf a, int lda, Buf b, int ldb, Buf c, int ldc) {
    ops.add(new Gemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc, lane));
  }

  void fork(int n) {
    if (lanes != 0 || n < 2) {
      throw new IllegalStateException("af2: forks do not nest and have at least two lanes");
    }
    lanes = n;
    lane = 0;
    ops.add(new Fork(n));
  }

  /** The lane the following operations run on, within a fork. */
  void lane(int l) {
    if (l < 0 || l >= lanes) {
      throw new IllegalStateException("af2: lane " + l + " outside the fork's " + lanes);
    }
    lane = l;
  }

  void join() {
    if (lanes == 0) {
      throw new IllegalStateException("af2: join without a fork");
    }
    lanes = 0;
    lane = 0;
    ops.add(new Join());
  }

  /** Temporaries still live (a complete program has none). */
  List<Buf> live() {
    return List.copyOf(liveTags.values());
  }

  // ------------------------------------------------------------------------------------------------- queries

  /** Summed work of every launch and GEMM in {@code mode}: flops, bytes read, bytes written. */
  double[] work(MathMode mode) {
    double[] w = new double[3];
    for (Op op : ops) {
      Work x = switch (op) {
        case Launch l -> l.kernel().work().apply(l.launch(), l.args());
        case Gemm g -> Blas.work(g.m(), g.n(), g.k(), 0f, mode);
        default -> Work.NONE;
      };
      w[0] += x.flops();
      w[1] += x.bytesRead();
      w[2] += x.bytesWritten();
    }
    return w;
  }

  /** Kernel launches and GEMMs. */
  int launches() {
    return (int) ops.stream().filter(o -> o instanceof Launch || o instanceof Gemm).count();
  }

  /**
   * The most bytes live at once when every temporary is allocated at its {@link Alloc} and freed at its {@link Free}
   * (program order), parameters and state included.
   */
  long peakBytes() {
    long live = 0;
    for (Buf b : bufs) {
      if (b.kind != Kind.TEMP) {
        live += b.bytes;
      }
    }
    long peak = live;
    for (Op op : ops) {
      if (op instanceof Alloc a) {
        live += a.buf().bytes;
        peak = Math.max(peak, live);
      } else if (op instanceof Free f) {
        live -= f.buf().bytes;
      }
    }
    return peak;
  }

  /** Bytes of a workspace with one slot per temporary tag (its largest size), parameters and state included. */
  long workspaceBytes() {
    Map<String, Long> slots = new HashMap<>();
    long fixed = 0;
    for (Buf b : bufs) {
      if (b.kind == Kind.TEMP) {
        slots.merge(b.tag, b.bytes, Math::max);
      } else {
        fixed += b.bytes;
      }
    }
    return fixed + slots.values().stream().mapToLong(Long::longValue).sum();
  }
}
