package io.gitm.trace;

import static io.gitm.trace.ApiKind.ALLOC;
import static io.gitm.trace.ApiKind.COPY;
import static io.gitm.trace.ApiKind.FREE;
import static io.gitm.trace.ApiKind.LAUNCH;
import static io.gitm.trace.ApiKind.MEMSET;
import static io.gitm.trace.ApiKind.OTHER;
import static io.gitm.trace.ApiKind.SYNC;

import java.util.List;

/**
 * The {@link ApiKind} of a CUDA runtime or driver API function, from its name: the one classifier of the CUPTI
 * tracer, the Kineto importer and, in C, {@code gt_classify_api} of the injection library (gitm-nvidia's
 * {@code gtrace_writer.c}, which a test holds to this class over every name CUPTI knows).
 *
 * <p>A name is read without surrounding blanks (characters up to U+0020) and without its per-thread-stream and
 * version suffixes ({@code _ptsz}, {@code _ptds}, {@code _v2}, {@code _v3020}, in any order), so that CUPTI's
 * {@code cudaMemcpyAsync_ptsz_v7000} and Kineto's {@code cudaMemcpyAsync} are one function. Then the first rule of
 * {@link #RULES} that matches decides; a name no rule matches, and a null or empty name, is {@link ApiKind#OTHER}.
 *
 * <p>The rules follow what each function does to the device, as CUDA documents it:
 * <ul>
 *   <li>LAUNCH: kernel and graph launches ({@code cudaLaunch*}, {@code cuLaunch*}, {@code cudaGraphLaunch},
 *       {@code cuGraphLaunch}). Not {@code cudaLaunchHostFunc} / {@code cuLaunchHostFunc}: they enqueue a host
 *       function in a stream and launch no kernel, so they are OTHER.
 *   <li>COPY: {@code cudaMemcpy*}, {@code cuMemcpy*}, and {@code cudaMemPrefetch*} / {@code cuMemPrefetch*}, which
 *       migrate managed memory to a device or the host in stream order, moving its bytes as a copy does.
 *   <li>MEMSET: {@code cudaMemset*}, {@code cuMemset*}.
 *   <li>ALLOC: {@code cudaMalloc*}, {@code cuMemAlloc*}, {@code cudaHostAlloc}, {@code cuMemHostAlloc},
 *       {@code cuMemCreate}.
 *   <li>FREE: {@code cudaFree*}, {@code cuMemFree*}, {@code cuMemRelease}.
 *   <li>SYNC: the calls that block the host until device work is done (device, context, thread, stream and event
 *       synchronize) and the stream waits on an event ({@code cudaStreamWaitEvent}, {@code cuStreamWaitEvent}).
 * </ul>
 */
public final class ApiKinds {
  /** One rule: a name, matched as a prefix of the base name or as the whole of it, and the kind it gives. */
  private record Rule(String name, boolean prefix, ApiKind kind) {
    boolean matches(String base) {
      return prefix ? base.startsWith(name) : base.equals(name);
    }
  }

  /** The rules in the order they are tried; {@code gt_classify_api} holds the same table. */
  private static final List<Rule> RULES = List.of(
      prefix("cudaLaunchHostFunc", OTHER), prefix("cuLaunchHostFunc", OTHER),
      prefix("cudaLaunch", LAUNCH), prefix("cuLaunch", LAUNCH), exact("__cudaLaunchKernel", LAUNCH),
      prefix("cudaGraphLaunch", LAUNCH), prefix("cuGraphLaunch", LAUNCH),
      prefix("cudaMemcpy", COPY), prefix("cuMemcpy", COPY),
      prefix("cudaMemPrefetch", COPY), prefix("cuMemPrefetch", COPY),
      prefix("cudaMemset", MEMSET), prefix("cuMemset", MEMSET),
      prefix("cudaMalloc", ALLOC), prefix("cuMemAlloc", ALLOC),
      exact("cudaHostAlloc", ALLOC), exact("cuMemHostAlloc", ALLOC), exact("cuMemCreate", ALLOC),
      prefix("cudaFree", FREE), prefix("cuMemFree", FREE), exact("cuMemRelease", FREE),
      exact("cudaDeviceSynchronize", SYNC), exact("cudaThreadSynchronize", SYNC),
      exact("cudaStreamSynchronize", SYNC), exact("cudaEventSynchronize", SYNC),
      exact("cuCtxSynchronize", SYNC), exact("cuStreamSynchronize", SYNC), exact("cuEventSynchronize", SYNC),
      exact("cudaStreamWaitEvent", SYNC), exact("cuStreamWaitEvent", SYNC));

  private ApiKinds() {}

  /** The kind of the API function {@code name} (as CUPTI or Kineto names it; null is OTHER). */
  public static ApiKind of(String name) {
    if (name == null) {
      return OTHER;
    }
    String base = base(name);
    for (Rule r : RULES) {
      if (r.matches(base)) {
        return r.kind;
      }
    }
    return OTHER;
  }

  /** {@code name} without surrounding blanks and without its trailing {@code _ptsz}, {@code _ptds}, {@code _v<n>}. */
  static String base(String name) {
    String n = name.trim();
    for (boolean changed = true; changed; ) {
      changed = false;
      if (n.endsWith("_ptsz") || n.endsWith("_ptds")) {
        n = n.substring(0, n.length() - 5);
        changed = true;
      }
      int digits = n.length();
      while (digits > 0 && n.charAt(digits - 1) >= '0' && n.charAt(digits - 1) <= '9') {
        digits--;
      }
      if (digits < n.length() && digits > 2 && n.startsWith("_v", digits - 2)) {
        n = n.substring(0, digits - 2);
        changed = true;
      }
    }
    return n;
  }

  private static Rule prefix(String name, ApiKind kind) {
    return new Rule(name, true, kind);
  }

  private static Rule exact(String name, ApiKind kind) {
    return new Rule(name, false, kind);
  }
}
