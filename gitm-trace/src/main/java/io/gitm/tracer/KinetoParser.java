package io.gitm.tracer;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.core.json.JsonFactory;

/**
 * Kineto event parsing: reads a trace-event JSON file (plain or gzipped) with a streaming parser, hands each event
 * to a consumer as one reused {@link KinetoEvent}, and returns the trace's top-level fields. Times are read exactly,
 * as decimal microseconds (or nanoseconds) shifted into nanoseconds. See {@link KinetoImporter} for the format.
 */
final class KinetoParser {
  private static final JsonFactory JSON = JsonFactory.builder().build();
  private static final Pattern TRAILING_INT = Pattern.compile(".*?(-?\\d+)\\s*$");

  private KinetoParser() {}

  /** How one pass reads times: decimal digits to shift, and whether an overflow is noted instead of failing. */
  static final class Times {
    final int digits;
    final boolean probe;
    boolean overflowed;

    Times(int digits, boolean probe) {
      this.digits = digits;
      this.probe = probe;
    }
  }

  /** The top-level fields of the trace other than its events. */
  static final class Header {
    long baseNs;
    boolean hasEvents;
    final SortedMap<Integer, String> deviceNames = new TreeMap<>();
    final SortedMap<String, String> attributes = new TreeMap<>();
  }

  /**
   * Parses the whole file, handing each event to {@code events}; returns the top-level fields. Any JSON error, a
   * truncated file, or a malformed event is a {@link KinetoFormatException} naming the line and column.
   */
  static Header parse(Path json, Times unit, Consumer<KinetoEvent> events) throws IOException {
    JsonParser p = null;
    try (InputStream in = open(json)) {
      p = JSON.createParser(ObjectReadContext.empty(), in);
      return parse(p, unit, events);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } catch (JacksonException e) {
      TokenStreamLocation at = e.getLocation() != null && e.getLocation() != TokenStreamLocation.NA
          ? e.getLocation() : p != null ? p.currentLocation() : TokenStreamLocation.NA;
      String msg = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
      if (endOfInput(e) || msg.contains("Unexpected end of ZLIB")) {
        msg = "the file is truncated: " + msg;
      }
      throw new KinetoFormatException(at.getLineNr(), at.getColumnNr(), firstLine(msg));
    } finally {
      if (p != null) {
        try {
          p.close();
        } catch (JacksonException ignored) {
          // the parse result or its error is what matters
        }
      }
    }
  }

  private static Header parse(JsonParser p, Times unit, Consumer<KinetoEvent> events) throws IOException {
    Header h = new Header();
    KinetoEvent e = new KinetoEvent();
    JsonToken root = p.nextToken();
    if (root == JsonToken.START_ARRAY) {
      h.hasEvents = true;
      if (!events(p, unit, e, events, true)) {
        h.attributes.put("kineto.unterminatedArray", "true");
        return h;
      }
    } else if (root == JsonToken.START_OBJECT) {
      String field;
      while ((field = p.nextName()) != null) {
        JsonToken t = p.nextToken();
        switch (field) {
          case "traceEvents" -> {
            if (t != JsonToken.START_ARRAY) {
              throw error(p, "\"traceEvents\" is not an array");
            }
            h.hasEvents = true;
            events(p, unit, e, events, false);
          }
          case "deviceProperties" -> deviceProperties(p, h);
          case "baseTimeNanoseconds" -> {
            if (!t.isNumeric()) {
              throw error(p, "\"baseTimeNanoseconds\" is not a number");
            }
            h.baseNs = p.getValueAsLong();
            h.attributes.put("kineto.baseTimeNanoseconds", Long.toString(h.baseNs));
          }
          case "distributedInfo" -> scalars(p, "kineto.distributedInfo.", h.attributes);
          default -> {
            if (t.isScalarValue()) {
              h.attributes.put("kineto." + field, p.getString());
            } else {
              p.skipChildren();
            }
          }
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT) {
        throw error(p, "expected a field name");
      }
    } else if (root == null) {
      throw new KinetoFormatException(-1, -1, "not a Kineto/Chrome trace: the file is empty");
    } else {
      throw error(p, "not a Kineto/Chrome trace: the file does not hold a JSON object or array");
    }
    if (p.nextToken() != null) {
      throw error(p, "unexpected content after the end of the trace");
    }
    if (!h.hasEvents) {
      throw new KinetoFormatException(-1, -1, "not a Kineto/Chrome trace: no \"traceEvents\" array");
    }
    return h;
  }

  /**
   * Reads the events of the array at the current token; true when the array was closed. When {@code openEndAllowed}
   * (the JSON Array Format, whose closing bracket the trace-event format makes optional so that a crashed tracer's
   * output stays readable), input that ends right after a whole event, with or without a comma, ends the array: false.
   */
  private static boolean events(JsonParser p, Times unit, KinetoEvent e, Consumer<KinetoEvent> events,
      boolean openEndAllowed) throws IOException {
    while (true) {
      JsonToken t;
      try {
        t = p.nextToken();
      } catch (JacksonException end) {
        if (openEndAllowed && endOfInput(end)) {
          return false;
        }
        throw end;
      }
      if (t == JsonToken.END_ARRAY) {
        return true;
      }
      if (t == null) {
        if (openEndAllowed) {
          return false;
        }
        throw error(p, "the file is truncated inside \"traceEvents\"");
      }
      if (t != JsonToken.START_OBJECT) {
        throw error(p, "a trace event is not a JSON object");
      }
      e.reset();
      TokenStreamLocation at = p.currentTokenLocation();
      e.line = at.getLineNr();
      e.column = at.getColumnNr();
      event(p, unit, e);
      e.classify();
      events.accept(e);
    }
  }

  private static void event(JsonParser p, Times unit, KinetoEvent e) throws IOException {
    String field;
    while ((field = p.nextName()) != null) {
      JsonToken t = p.nextToken();
      switch (field) {
        case "ph" -> e.ph = string(p, t);
        case "cat" -> e.cat = string(p, t);
        case "name" -> e.name = string(p, t);
        case "ts" -> {
          e.tsNs = time(p, t, unit, e, "ts");
          e.hasTs = true;
        }
        case "dur" -> {
          e.durNs = time(p, t, unit, e, "dur");
          e.hasDur = true;
        }
        case "pid" -> {
          Long v = integer(p, t);
          e.hasPid = v != null;
          e.pid = v == null ? 0 : v;
        }
        case "tid" -> {
          Long v = integer(p, t);
          e.hasTid = v != null;
          e.tid = v == null ? 0 : v;
        }
        case "args" -> args(p, t, e);
        default -> p.skipChildren();
      }
    }
    if (p.currentToken() != JsonToken.END_OBJECT) {
      throw error(p, "expected a field name in a trace event");
    }
  }

  private static void args(JsonParser p, JsonToken t, KinetoEvent e) throws IOException {
    if (t != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    String field;
    while ((field = p.nextName()) != null) {
      JsonToken v = p.nextToken();
      switch (field) {
        case "device" -> {
          Long x = integer(p, v);
          e.hasDevice = x != null;
          e.device = x == null ? 0 : x;
        }
        case "inDevice" -> {
          Long x = integer(p, v);
          e.hasInDevice = x != null;
          e.inDevice = x == null ? 0 : x;
        }
        case "stream" -> {
          Long x = integer(p, v);
          e.hasStream = x != null;
          e.stream = x == null ? 0 : x;
        }
        case "correlation", "correlation id", "correlationId" -> {
          Long x = integer(p, v);
          e.hasCorrelation = x != null;
          e.correlation = x == null ? 0 : x;
        }
        case "registers per thread" -> {
          Long x = integer(p, v);
          e.hasRegisters = x != null;
          e.registers = x == null ? 0 : x;
        }
        case "shared memory" -> {
          Long x = integer(p, v);
          e.hasShared = x != null;
          e.shared = x == null ? 0 : x;
        }
        case "bytes" -> {
          Long x = integer(p, v);
          e.hasBytes = x != null;
          e.bytes = x == null ? 0 : x;
        }
        case "grid" -> e.grid = triple(p, v);
        case "block" -> e.block = triple(p, v);
        case "cuda_sync_kind" -> e.syncKind = string(p, v);
        case "External id" -> {
          Long x = integer(p, v);
          e.hasExternalId = x != null;
          e.externalId = x == null ? 0 : x;
        }
        default -> collectiveArg(p, v, field, e);
      }
    }
  }

  /** The collective metadata PyTorch writes on {@code record_param_comms} and on the NCCL kernels it launched. */
  private static void collectiveArg(JsonParser p, JsonToken v, String field, KinetoEvent e) throws IOException {
    switch (field) {
      case "Collective name" -> e.collective = string(p, v);
      case "dtype" -> e.dtype = string(p, v);
      case "Process Group Name" -> e.groupName = string(p, v);
      case "Process Group Description" -> e.groupDescription = string(p, v);
      case "Process Group Ranks" -> e.groupRanks = string(p, v);
      case "In msg nelems" -> e.inElements = count(p, v);
      case "Out msg nelems" -> e.outElements = count(p, v);
      case "Group size" -> e.groupSize = count(p, v);
      default -> p.skipChildren();
    }
  }

  /** A count: a non-negative integer, else -1. */
  private static long count(JsonParser p, JsonToken v) throws IOException {
    Long x = integer(p, v);
    return x == null || x < 0 ? -1 : x;
  }

  private static void deviceProperties(JsonParser p, Header h) throws IOException {
    if (p.currentToken() != JsonToken.START_ARRAY) {
      p.skipChildren();
      return;
    }
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.START_OBJECT) {
        p.skipChildren();
        continue;
      }
      Map<String, String> props = new TreeMap<>();
      scalars(p, "", props);
      String id = props.get("id");
      Long index = id == null ? null : parseLong(id);
      if (index == null || !fits(index)) {
        continue;
      }
      h.deviceNames.put((int) (long) index, props.getOrDefault("name", ""));
      props.forEach((k, v) -> {
        if (!k.equals("id")) {
          h.attributes.put("kineto.device." + index + "." + k, v);
        }
      });
    }
  }

  /** Reads the scalar fields of the object at the current token into {@code out} (prefixed); skips the rest. */
  private static void scalars(JsonParser p, String prefix, Map<String, String> out) throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    String field;
    while ((field = p.nextName()) != null) {
      JsonToken v = p.nextToken();
      if (v.isScalarValue()) {
        out.put(prefix + field, p.getString());
      } else {
        p.skipChildren();
      }
    }
  }

  private static String string(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_STRING) {
      return p.getString();
    }
    if (t.isScalarValue() && t != JsonToken.VALUE_NULL) {
      return p.getString();
    }
    p.skipChildren();
    return null;
  }

  /** An integer field: a JSON integer, a float (truncated), or a string ending in an integer ("stream 7"). */
  private static Long integer(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case VALUE_NUMBER_INT -> {
        return p.getValueAsLong();
      }
      case VALUE_NUMBER_FLOAT -> {
        return (long) p.getDoubleValue();
      }
      case VALUE_STRING -> {
        Matcher m = TRAILING_INT.matcher(p.getString());
        return m.matches() ? parseLong(m.group(1)) : null;
      }
      default -> {
        p.skipChildren();
        return null;
      }
    }
  }

  private static int[] triple(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.START_ARRAY) {
      p.skipChildren();
      return null;
    }
    int[] v = new int[3];
    int n = 0;
    JsonToken x;
    while ((x = p.nextToken()) != JsonToken.END_ARRAY) {
      Long i = integer(p, x);
      if (i == null || n >= 3 || !fits(i)) {
        n = 4;
        continue;
      }
      v[n++] = (int) (long) i;
    }
    return n == 3 ? v : null;
  }

  /** Whether {@code v} is a valid id of the trace model's 32-bit fields: 0 to {@link Integer#MAX_VALUE}. */
  static boolean fits(long v) {
    return v >= 0 && v <= Integer.MAX_VALUE;
  }

  /** A time field, exactly, in nanoseconds. */
  private static long time(JsonParser p, JsonToken t, Times unit, KinetoEvent e, String field) throws IOException {
    BigDecimal d;
    try {
      d = switch (t) {
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getDecimalValue();
        case VALUE_STRING -> new BigDecimal(p.getString().strip());
        default -> null;
      };
    } catch (NumberFormatException ex) {
      d = null;
    }
    if (d == null) {
      p.skipChildren();
      throw new KinetoFormatException(e.line, e.column, "trace event \"" + field + "\" is not a number");
    }
    try {
      return d.movePointRight(unit.digits).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    } catch (ArithmeticException ex) {
      if (unit.probe) {
        unit.overflowed = true;
        return 0;
      }
      throw new KinetoFormatException(e.line, e.column, "trace event \"" + field + "\" is out of range: " + d);
    }
  }

  /** Whether the parser failed because the input ended (Jackson reports some of these cases by message only). */
  private static boolean endOfInput(JacksonException e) {
    String msg = e.getOriginalMessage();
    return e instanceof UnexpectedEndOfInputException || (msg != null && msg.contains("end-of-input"));
  }

  private static Long parseLong(String s) {
    try {
      return Long.parseLong(s.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static KinetoFormatException error(JsonParser p, String detail) {
    TokenStreamLocation at = p.currentTokenLocation();
    return new KinetoFormatException(at.getLineNr(), at.getColumnNr(), detail);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }

  /** The file as a stream, gunzipped when it starts with the gzip magic. */
  private static InputStream open(Path json) throws IOException {
    InputStream in = new BufferedInputStream(Files.newInputStream(json), 1 << 16);
    in.mark(2);
    int b0 = in.read();
    int b1 = in.read();
    in.reset();
    if (b0 == 0x1f && b1 == 0x8b) {
      return new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16);
    }
    return in;
  }
}
