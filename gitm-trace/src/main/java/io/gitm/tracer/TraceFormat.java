package io.gitm.tracer;

import io.gitm.trace.ClockDomain;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceDevice;
import io.gitm.trace.TraceMeta;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The constants of the {@code .gtrace} format (docs/trace-format.md) and the JSON form of its meta. */
final class TraceFormat {
  static final byte[] MAGIC = "GITMTRC1".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 3;
  /**
   * The oldest version this reader still reads (version 1 lacks work and traffic records, version 2 host operation
   * and collective records).
   */
  static final int OLDEST_VERSION = 1;
  /** magic, version, metaLength. */
  static final int HEADER_BYTES = 16;
  /** payloadLength, recordCount, crc32. */
  static final int BLOCK_HEADER_BYTES = 12;
  /** Writers cut blocks at about this many payload bytes. */
  static final int BLOCK_TARGET_BYTES = 64 * 1024;

  static final byte TAG_STRING = 1;
  static final byte TAG_KERNEL = 2;
  static final byte TAG_COPY = 3;
  static final byte TAG_MEMSET = 4;
  static final byte TAG_SYNC = 5;
  static final byte TAG_API = 6;
  static final byte TAG_OVERHEAD = 7;
  static final byte TAG_STATE = 8;
  static final byte TAG_MARKER = 9;
  static final byte TAG_WORK = 10;
  static final byte TAG_TRAFFIC = 11;
  static final byte TAG_HOST_OP = 12;
  static final byte TAG_COLLECTIVE = 13;

  /** Bytes after the tag of each fixed-size record, indexed by tag (0 for the variable-size ones). */
  static final int[] FIXED_BODY_BYTES = {
      0, // unused
      0, // string: u32 id, u32 length, bytes
      4 + 4 + 4 + 8 + 8 + 8 + 9 * 4, // kernel
      1 + 1 + 1 + 8 + 4 + 4 + 8 + 8 + 8, // copy
      1 + 4 + 8 + 4 + 4 + 8 + 8 + 8, // memset
      1 + 4 + 4 + 8 + 8 + 8, // sync
      1 + 4 + 8 + 8 + 8 + 8, // api call
      1 + 8 + 8 + 8, // overhead
      0, // state sample: i32 device, i64 time, u8 n, n * (u8, f64)
      4 + 8 + 8 + 8, // marker
      4 + 4 + 4 + 8 + 8 + 8 + 1 + 8 + 8 + 8 + 8, // work
      4 + 8 + 8 + 8 + 8 + 4, // traffic
      4 + 8 + 8 + 8 + 8, // host operation
      5 * 4 + 8 + 8 + 4 + 4 + 8 + 8 + 8 + 8 + 8, // collective
  };

  /**
   * The highest record tag a file of {@code version} may hold: host operation and collective records came with
   * version 3 (earlier readers would refuse them; version 1 files are not held to lacking work and traffic records).
   */
  static int lastTag(int version) {
    return version < 3 ? TAG_TRAFFIC : TAG_COLLECTIVE;
  }

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private TraceFormat() {}

  static byte[] metaToJson(TraceMeta meta) {
    ObjectNode root = JSON.createObjectNode();
    root.put("source", meta.source());
    root.put("clock", meta.clock().name());
    ArrayNode devices = root.putArray("devices");
    for (TraceDevice d : meta.devices()) {
      ObjectNode o = devices.addObject();
      o.put("index", d.index());
      o.put("name", d.name());
      o.put("uuid", d.uuid());
      o.put("kind", d.kind().name());
    }
    ObjectNode attributes = root.putObject("attributes");
    new TreeMap<>(meta.attributes()).forEach(attributes::put);
    return JSON.writeValueAsBytes(root);
  }

  /** Parses the header's meta; a missing or unknown clock or device kind is an error, unknown fields are ignored. */
  static TraceMeta metaFromJson(byte[] json, long offset) throws TraceFormatException {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JacksonException e) {
      throw TraceFormatException.corrupt(offset, "the meta is not valid JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw TraceFormatException.corrupt(offset, "the meta is not a JSON object");
    }
    String clock = root.path("clock").asString("");
    ClockDomain domain = enumValue(ClockDomain.class, clock, offset, "clock");
    List<TraceDevice> devices = new ArrayList<>();
    for (JsonNode d : root.path("devices")) {
      DeviceKind kind = enumValue(DeviceKind.class, d.path("kind").asString(""), offset, "device kind");
      if (!d.path("index").isIntegralNumber()) {
        throw TraceFormatException.corrupt(offset, "a device in the meta has no integer index");
      }
      devices.add(new TraceDevice(d.path("index").asInt(), d.path("name").asString(""), d.path("uuid").asString(""),
          kind));
    }
    Map<String, String> attributes = new TreeMap<>();
    root.path("attributes").forEachEntry((k, v) -> attributes.put(k, v.isString() ? v.asString() : v.toString()));
    return new TraceMeta(root.path("source").asString(""), domain, devices, attributes);
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String name, long offset, String what)
      throws TraceFormatException {
    try {
      return Enum.valueOf(type, name);
    } catch (IllegalArgumentException e) {
      throw TraceFormatException.corrupt(offset, "unknown " + what + " '" + name + "' in the meta");
    }
  }
}
