package io.gitm.export;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A strict parser of the Prometheus text exposition format, version 0.0.4, written from the format's specification
 * and independent of {@link PrometheusText}: what a Prometheus server would refuse, it refuses, with the line number.
 * No Java parser of the format is maintained on Maven Central (the old scraper libraries there carry protobuf 2
 * classes that clash with the protobuf 4 the OTLP tests need), hence this one; {@code PrometheusTextParserTest} pins
 * it on the format's own examples.
 *
 * <p>Rules: lines end with {@code \n}; blank lines are ignored; {@code # HELP name text} and
 * {@code # TYPE name type} are metadata, any other {@code #} line a comment; at most one HELP and one TYPE per
 * family, the TYPE before its first sample; a sample is {@code name[{label="value",…}] value [timestamp]} with
 * label values escaping {@code \\}, {@code \"} and {@code \n}; a histogram's or summary's {@code _bucket},
 * {@code _sum} and {@code _count} samples belong to it; a series (name and label set) appears once; values are Go
 * floats ({@code NaN}, {@code +Inf}, {@code -Inf}, decimal with exponent); timestamps are integer milliseconds.
 */
public final class PrometheusTextParser {
  public record Sample(String name, Map<String, String> labels, double value, Long timestampMs) {}

  public record ParsedFamily(String name, String type, String help, List<Sample> samples) {
    /** The value of the one sample whose labels include all of {@code labels}. */
    public double value(Map<String, String> labels) {
      List<Sample> m = samples.stream().filter(s -> s.labels().entrySet().containsAll(labels.entrySet())).toList();
      if (m.size() != 1) {
        throw new AssertionError(m.size() + " samples of " + name + " match " + labels + ": " + samples);
      }
      return m.getFirst().value();
    }

    public double value() {
      return value(Map.of());
    }
  }

  public static final class ParseException extends RuntimeException {
    ParseException(int line, String message) {
      super("line " + line + ": " + message);
    }
  }

  private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

  private final Map<String, String> types = new LinkedHashMap<>();
  private final Map<String, String> helps = new LinkedHashMap<>();
  private final Map<String, List<Sample>> samples = new LinkedHashMap<>();
  private final Set<String> series = new HashSet<>();
  private int lineNo;

  private PrometheusTextParser() {
  }

  /** The families of {@code text}, by name, in the order first seen. */
  public static Map<String, ParsedFamily> parse(String text) {
    return new PrometheusTextParser().run(text);
  }

  private Map<String, ParsedFamily> run(String text) {
    if (!text.isEmpty() && !text.endsWith("\n")) {
      throw new ParseException(text.split("\n", -1).length, "the last line does not end with a line feed");
    }
    for (String line : text.split("\n", -1)) {
      lineNo++;
      if (line.isBlank()) {
        continue;
      }
      if (line.charAt(0) == '#') {
        meta(line);
      } else {
        sample(line);
      }
    }
    Map<String, ParsedFamily> out = new LinkedHashMap<>();
    Set<String> names = new java.util.LinkedHashSet<>();
    names.addAll(types.keySet());
    names.addAll(helps.keySet());
    names.addAll(samples.keySet());
    for (String n : names) {
      out.put(n, new ParsedFamily(n, types.getOrDefault(n, "untyped"), helps.get(n),
          List.copyOf(samples.getOrDefault(n, List.of()))));
    }
    return out;
  }

  private void meta(String line) {
    Cursor c = new Cursor(line, 1);
    c.blanks();
    String keyword = c.word();
    if (!keyword.equals("HELP") && !keyword.equals("TYPE")) {
      return; // a comment
    }
    if (!c.blanks()) {
      throw new ParseException(lineNo, "no blank after # " + keyword);
    }
    String name = c.metricName();
    if (keyword.equals("HELP")) {
      if (helps.containsKey(name)) {
        throw new ParseException(lineNo, "second HELP for " + name);
      }
      String help = "";
      if (c.blanks()) {
        help = unescape(c.rest(), false);
      } else if (!c.atEnd()) {
        throw new ParseException(lineNo, "no blank between the name and the help text");
      }
      helps.put(name, help);
    } else {
      if (!c.blanks()) {
        throw new ParseException(lineNo, "TYPE " + name + " has no type");
      }
      String type = c.rest().strip();
      if (!TYPES.contains(type)) {
        throw new ParseException(lineNo, "unknown type '" + type + "'");
      }
      if (types.containsKey(name)) {
        throw new ParseException(lineNo, "second TYPE for " + name);
      }
      if (samples.containsKey(name)) {
        throw new ParseException(lineNo, "TYPE for " + name + " after its samples");
      }
      types.put(name, type);
    }
  }

  private void sample(String line) {
    Cursor c = new Cursor(line, 0);
    c.blanks();
    String name = c.metricName();
    Map<String, String> labels = new LinkedHashMap<>();
    boolean blank = c.blanks();
    if (c.peek() == '{') {
      c.next();
      c.blanks();
      while (c.peek() != '}') {
        String label = c.labelName();
        if (labels.containsKey(label)) {
          throw new ParseException(lineNo, "label " + label + " twice");
        }
        c.blanks();
        c.expect('=');
        c.blanks();
        labels.put(label, c.quoted());
        c.blanks();
        if (c.peek() == ',') {
          c.next();
          c.blanks();
        } else if (c.peek() != '}') {
          throw new ParseException(lineNo, "expected ',' or '}' after label " + label);
        }
      }
      c.next();
      blank = c.blanks();
    }
    if (!blank) {
      throw new ParseException(lineNo, "no blank before the value");
    }
    double value = number(c.token());
    Long ts = null;
    if (c.blanks() && !c.atEnd()) {
      String t = c.token();
      try {
        ts = Long.parseLong(t);
      } catch (NumberFormatException e) {
        throw new ParseException(lineNo, "timestamp '" + t + "' is not integer milliseconds");
      }
      c.blanks();
    }
    if (!c.atEnd()) {
      throw new ParseException(lineNo, "unexpected text after the sample: '" + c.rest() + "'");
    }
    String family = familyOf(name);
    String key = name + labels.entrySet().stream().sorted(Map.Entry.comparingByKey()).toList();
    if (!series.add(key)) {
      throw new ParseException(lineNo, "series " + key + " twice");
    }
    samples.computeIfAbsent(family, k -> new ArrayList<>()).add(new Sample(name, Map.copyOf(labels), value, ts));
  }

  private String familyOf(String name) {
    for (String suffix : List.of("_bucket", "_sum", "_count")) {
      if (name.endsWith(suffix)) {
        String base = name.substring(0, name.length() - suffix.length());
        String t = types.get(base);
        if ("histogram".equals(t) || "summary".equals(t)) {
          return base;
        }
      }
    }
    return name;
  }

  private double number(String s) {
    switch (s) {
      case "NaN":
        return Double.NaN;
      case "+Inf", "Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      default:
        break;
    }
    if (!s.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) {
      throw new ParseException(lineNo, "value '" + s + "' is not a number");
    }
    return Double.parseDouble(s);
  }

  private String unescape(String s, boolean quoted) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch != '\\') {
        b.append(ch);
        continue;
      }
      if (++i == s.length()) {
        throw new ParseException(lineNo, "a backslash ends the text");
      }
      char e = s.charAt(i);
      switch (e) {
        case '\\' -> b.append('\\');
        case 'n' -> b.append('\n');
        case '"' -> {
          if (!quoted) {
            b.append('\\');
          }
          b.append('"');
        }
        default -> b.append('\\').append(e); // the format keeps other escapes as written
      }
    }
    return b.toString();
  }

  private final class Cursor {
    private final String s;
    private int at;

    Cursor(String s, int at) {
      this.s = s;
      this.at = at;
    }

    boolean atEnd() {
      return at >= s.length();
    }

    char peek() {
      if (atEnd()) {
        throw new ParseException(lineNo, "the line ends too early: '" + s + "'");
      }
      return s.charAt(at);
    }

    void next() {
      at++;
    }

    void expect(char ch) {
      if (peek() != ch) {
        throw new ParseException(lineNo, "expected '" + ch + "' at column " + (at + 1));
      }
      at++;
    }

    /** Skips spaces and tabs; whether there were any. */
    boolean blanks() {
      int from = at;
      while (!atEnd() && (s.charAt(at) == ' ' || s.charAt(at) == '\t')) {
        at++;
      }
      return at > from;
    }

    String word() {
      int from = at;
      while (!atEnd() && s.charAt(at) != ' ' && s.charAt(at) != '\t') {
        at++;
      }
      return s.substring(from, at);
    }

    String token() {
      String t = word();
      if (t.isEmpty()) {
        throw new ParseException(lineNo, "missing value at column " + (at + 1));
      }
      return t;
    }

    String rest() {
      String r = s.substring(at);
      at = s.length();
      return r;
    }

    String metricName() {
      int from = at;
      while (!atEnd() && (Character.isLetterOrDigit(s.charAt(at)) || s.charAt(at) == '_' || s.charAt(at) == ':')
          && s.charAt(at) < 128) {
        at++;
      }
      String n = s.substring(from, at);
      if (!n.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
        throw new ParseException(lineNo, "invalid metric name at column " + (from + 1) + ": '" + s + "'");
      }
      return n;
    }

    String labelName() {
      int from = at;
      while (!atEnd() && (Character.isLetterOrDigit(s.charAt(at)) || s.charAt(at) == '_') && s.charAt(at) < 128) {
        at++;
      }
      String n = s.substring(from, at);
      if (!n.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
        throw new ParseException(lineNo, "invalid label name at column " + (from + 1));
      }
      if (n.startsWith("__")) {
        throw new ParseException(lineNo, "label name " + n + " is reserved");
      }
      return n;
    }

    String quoted() {
      expect('"');
      StringBuilder raw = new StringBuilder();
      while (true) {
        char ch = peek();
        at++;
        if (ch == '"') {
          break;
        }
        raw.append(ch);
        if (ch == '\\') {
          raw.append(peek());
          at++;
        }
      }
      return unescape(raw.toString(), true);
    }
  }
}
