package io.gitm.nvidia.cupti;

import io.gitm.api.Ticker;
import io.gitm.trace.ApiCallRecord;
import io.gitm.trace.TraceRecord;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

/**
 * Records a small real in-process CUPTI trace as a CI fixture ({@link RawActivityFile}): pageable and pinned copies,
 * a memset, {@value #LAUNCHES} launches of {@code gitm_axpb} on a created stream, context synchronizations. Usage:
 * {@code CuptiFixtureRecorder OUT_FILE}; prints the counts by record type. Not a test: run on the GPU machine.
 */
public final class CuptiFixtureRecorder {
  static final int LAUNCHES = 50;
  static final int N = 1 << 16;

  private CuptiFixtureRecorder() {
  }

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    var reason = GpuKit.unusableReason();
    if (reason.isPresent()) {
      System.err.println("CuptiFixtureRecorder: " + reason.get());
      return;
    }
    ConcurrentLinkedQueue<RawActivityFile.Raw> raws = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<TraceRecord> decoded = new ConcurrentLinkedQueue<>();
    Map<Long, String> names = new ConcurrentHashMap<>();
    try (GpuKit kit = GpuKit.open()) {
      Driver d = kit.driver;
      long bytes = 4L * N;
      MemorySegment stream = d.createStream();
      long dx = d.malloc(bytes);
      MemorySegment pinned = d.mallocHost(bytes);
      MemorySegment pageable = kit.arena.allocate(bytes, 64);
      MemorySegment args0 = kit.axpbArgs(dx, N, 1.5f, 0.25f);
      CuptiTracer tracer = new CuptiTracer(List.of(), Map.of(), Ticker.system());
      CuptiTracer.rawTap = activity -> {
        RawActivityFile.Raw r = RawActivityFile.capture(activity);
        if (r != null) {
          raws.add(r);
        }
      };
      tracer.start(decoded::add);
      try {
        d.copyHtoD(dx, pageable, bytes);
        d.copyHtoD(dx, pinned, bytes);
        d.memsetD8(dx, (byte) 0, bytes);
        for (int i = 0; i < LAUNCHES; i++) {
          d.launch(kit.axpb, N / 256, 256, stream, args0);
        }
        d.synchronize(stream);
        d.copyDtoH(pinned, dx, bytes);
        d.synchronize();
      } finally {
        tracer.stop();
        CuptiTracer.rawTap = null;
      }
      Cupti c = Cupti.instance();
      for (RawActivityFile.Raw r : raws) {
        if (r.kind() == CuptiLayout.KIND_DRIVER || r.kind() == CuptiLayout.KIND_RUNTIME) {
          int domain = r.kind() == CuptiLayout.KIND_DRIVER ? 1 : 2;
          int cbid = java.nio.ByteBuffer.wrap(r.bytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN)
              .getInt((int) CuptiLayout.Api.CBID);
          String name = c.callbackName(domain, cbid);
          if (name != null) {
            names.put(((long) domain << 32) | Integer.toUnsignedLong(cbid), name);
          }
        }
      }
      long offset = Long.parseLong(tracer.meta().attributes().get("clock.offsetNs"));
      RawActivityFile file = new RawActivityFile(offset, List.copyOf(raws), new TreeMap<>(names));
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.write(out, file.encode());
      d.free(dx);
      d.freeHost(pinned);
      System.out.println("CuptiFixtureRecorder: " + raws.size() + " raw records to " + out + "; decoded by type: "
          + decoded.stream().collect(Collectors.groupingBy(r -> r.getClass().getSimpleName(), TreeMap::new,
          Collectors.counting())) + "; API calls: " + decoded.stream().filter(r -> r instanceof ApiCallRecord)
          .map(r -> ((ApiCallRecord) r).name()).distinct().sorted().toList());
    }
  }
}
