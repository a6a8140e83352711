package io.gitm.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses a fault spec: faults separated by commas, each {@code name[@onset][:key=value[:key=value…]]}. A comma
 * followed by {@code key=value} continues the previous fault's parameters, so
 * {@code thermal@5s:severity=0.4,duration=10s,allocator-churn} is two faults. Times take ns, us, ms, s or m; a
 * bare number is seconds. Every error is one line naming the offending part.
 */
final class FaultParser {
  private static final Pattern TIME = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|ms|s|m)?");

  private FaultParser() {
  }

  static List<InjectedFault> parse(String spec, int multiprocessors, double boostMHz, double powerLimitW) {
    List<InjectedFault> out = new ArrayList<>();
    if (spec == null || spec.isBlank() || spec.strip().equalsIgnoreCase("none")) {
      return out;
    }
    record Partial(FaultKind kind, long onset, Map<String, String> raw) {
    }
    List<Partial> parts = new ArrayList<>();
    for (String token : spec.split(",")) {
      String t = token.strip();
      if (t.isEmpty()) {
        throw new IllegalArgumentException("fault spec '" + spec + "' has an empty entry");
      }
      if (t.matches("[A-Za-z][A-Za-z0-9]*=.*")) {
        if (parts.isEmpty()) {
          throw new IllegalArgumentException(
              "fault spec '" + spec + "' starts with parameter '" + t + "' before any fault");
        }
        addParams(parts.getLast().raw(), t, parts.getLast().kind());
        continue;
      }
      String[] pieces = t.split(":");
      String head = pieces[0].strip();
      long onset = 0;
      int at = head.indexOf('@');
      if (at >= 0) {
        onset = parseTime(head.substring(at + 1), "onset of fault '" + head.substring(0, at) + "'");
        head = head.substring(0, at);
      }
      FaultKind kind = FaultKind.byId(head.strip());
      Map<String, String> raw = new LinkedHashMap<>();
      for (int i = 1; i < pieces.length; i++) {
        addParams(raw, pieces[i].strip(), kind);
      }
      parts.add(new Partial(kind, onset, raw));
    }
    if (parts.stream().filter(p -> p.kind() == FaultKind.TIME_SLICING).count() > 1) {
      throw new IllegalArgumentException("fault spec '" + spec + "' has 'time-slicing' twice: the device has one other"
          + " time-slicing context");
    }
    for (Partial p : parts) {
      Map<String, Double> params = new LinkedHashMap<>(p.kind().defaults);
      long end = Long.MAX_VALUE;
      String kernel = "";
      for (var e : p.raw().entrySet()) {
        if (e.getKey().equals("duration")) {
          end = p.onset() + parseTime(e.getValue(), "duration of fault '" + p.kind().id + "'");
        } else if (e.getKey().equals("kernel") && p.kind() == FaultKind.UNCOALESCED) {
          kernel = e.getValue();
        } else {
          params.put(e.getKey(), number(e.getValue(), p.kind(), e.getKey()));
        }
      }
      fillAndCheck(p.kind(), params, multiprocessors, boostMHz, powerLimitW);
      out.add(new InjectedFault(p.kind().id, p.onset(), end, params, kernel));
    }
    return out;
  }

  private static void addParams(Map<String, String> raw, String kv, FaultKind kind) {
    int eq = kv.indexOf('=');
    if (eq <= 0 || eq == kv.length() - 1) {
      throw new IllegalArgumentException(
          "fault '" + kind.id + "' has a malformed parameter '" + kv + "': write key=value");
    }
    String key = kv.substring(0, eq).strip();
    if (!key.equals("duration") && !(key.equals("kernel") && kind == FaultKind.UNCOALESCED)
        && !kind.defaults.containsKey(key)) {
      throw new IllegalArgumentException("fault '" + kind.id + "' has no parameter '" + key + "': it takes "
          + String.join(", ", kind.defaults.keySet()) + (kind.defaults.isEmpty() ? "" : ", ") + "duration"
          + (kind == FaultKind.UNCOALESCED ? ", kernel" : ""));
    }
    if (raw.put(key, kv.substring(eq + 1).strip()) != null) {
      throw new IllegalArgumentException("fault '" + kind.id + "' sets parameter '" + key + "' twice");
    }
  }

  private static double number(String v, FaultKind kind, String key) {
    try {
      double d = Double.parseDouble(v);
      if (!Double.isFinite(d) || d < 0) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "fault '" + kind.id + "' parameter '" + key + "' is not a non-negative number: '" + v + "'");
    }
  }

  static long parseTime(String s, String what) {
    Matcher m = TIME.matcher(s.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException(what + " '" + s + "' is not a time: use e.g. 500ms, 5s, 2m");
    }
    double v = Double.parseDouble(m.group(1));
    String u = m.group(2) == null ? "s" : m.group(2);
    double ns = v * switch (u) {
      case "ns" -> 1;
      case "us" -> 1e3;
      case "ms" -> 1e6;
      case "m" -> 60e9;
      default -> 1e9;
    };
    return Math.round(ns);
  }

  private static void fillAndCheck(FaultKind k, Map<String, Double> p, int sms, double boostMHz, double limitW) {
    switch (k) {
      case THERMAL -> range(k, p, "severity", 0, 1);
      case POWER_CAP -> {
        if (p.get("watts") == 0) {
          p.put("watts", limitW / 2);
        }
        range(k, p, "watts", 1, limitW);
      }
      case CLOCK_DROP -> {
        if (p.get("mhz") == 0) {
          p.put("mhz", boostMHz / 2);
        }
        range(k, p, "mhz", 1, boostMHz);
      }
      case ALLOCATOR_CHURN -> range(k, p, "factor", 1, 1000);
      case LAUNCH_BOUND -> range(k, p, "gapUs", 0, 1e6);
      case UNCOALESCED -> range(k, p, "factor", 1, 64);
      case NOISY_NEIGHBOUR -> {
        if (p.get("sms") == 0) {
          p.put("sms", (double) (sms / 2));
        }
        range(k, p, "sms", 1, sms - 1);
        p.put("sms", Math.floor(p.get("sms")));
      }
      case TIME_SLICING -> {
        range(k, p, "sliceUs", 1, 1e6);
        range(k, p, "jobSliceUs", 1, 1e6);
      }
      case SYNC_STALL -> {
        range(k, p, "every", 1, 1e9);
        p.put("every", Math.floor(p.get("every")));
      }
      case PCIE_DOWNGRADE, POWER_BRAKE -> range(k, p, "factor", 0.01, 1);
      case ECC_RETIREMENT -> {
        range(k, p, "factor", 0.01, 1);
        range(k, p, "pages", 0, 1e6);
      }
      default -> {
      }
    }
  }

  private static void range(FaultKind k, Map<String, Double> p, String key, double lo, double hi) {
    double v = p.get(key);
    if (v < lo || v > hi) {
      throw new IllegalArgumentException("fault '" + k.id + "' parameter '" + key + "' = " + v + " is outside "
          + lo + ".." + hi);
    }
  }
}
