package io.gitm.workloads.hft;

import io.gitm.workload.InputFingerprint;
import io.gitm.workload.WorkloadInput;
import io.gitm.workloads.kit.Settings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * hft-lob on a user's ITCH 5.0 file: the options that say how to read it, the file's scan (done once, when the
 * first session opens), and the sizes the books take from it.
 */
final class HftInput {
  /** Options {@link #of} takes. */
  static final List<String> OPTIONS = List.of("symbols", "book-depth");
  static final List<String> FORMATS = List.of(
      "an ITCH 5.0 file (Nasdaq TotalView-ITCH 5.0), plain or gzip, with 2-byte length prefixes (as Nasdaq ships"
          + " them), zero prefixes, or none; options: symbols=AAPL,MSFT (keep those instruments), book-depth=N"
          + " (refuse data that needs more than N price levels a side; default: as the data needs)");
  /** The most order-table slots a book may have (2^20), as {@link HftLobWorkload.Params} allows. */
  private static final int MAX_LOG_SLOTS = 20;

  private final WorkloadInput in;
  /** Stock symbols to keep ({@code symbols=AAPL,MSFT}); empty keeps all. */
  private final Set<String> pick;
  /** Price levels a side the books are declared to hold ({@code book-depth=N}), or 0: as the data needs. */
  private final int bookDepth;
  /** The file's scan, once made. */
  private ItchInput scan;

  private HftInput(WorkloadInput in, Set<String> pick, int bookDepth) {
    this.in = in;
    this.pick = pick;
    this.bookDepth = bookDepth;
  }

  static HftInput of(WorkloadInput in) {
    Settings.checkInputOptions(in.options(), "hft-lob", OPTIONS);
    Set<String> pick = new LinkedHashSet<>();
    String symbols = in.options().get("symbols");
    if (symbols != null) {
      for (String s : symbols.split(",", -1)) {
        String t = s.strip();
        if (t.isEmpty() || t.length() > 8 || !t.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
          throw new IllegalArgumentException("hft-lob: symbols: '" + s + "' is no stock symbol (1 to 8 printable"
              + " characters, comma-separated)");
        }
        pick.add(t);
      }
    }
    int depth = 0;
    String d = in.options().get("book-depth");
    if (d != null) {
      try {
        depth = Integer.parseInt(d.strip());
      } catch (NumberFormatException e) {
        depth = -1;
      }
      if (depth < 10 || depth > 4096) {
        throw new IllegalArgumentException("hft-lob: book-depth must be a whole number 10..4096, got '" + d + "'");
      }
    }
    return new HftInput(in, Set.copyOf(pick), depth);
  }

  /** The file's scan, done on the first call. */
  synchronized ItchInput scanned() {
    if (scan == null) {
      scan = ItchInput.scan(in.path(), pick);
    }
    return scan;
  }

  Optional<InputFingerprint> fingerprint() {
    ItchInput s;
    synchronized (this) {
      s = scan;
    }
    if (s == null) {
      return Optional.empty();
    }
    Map<String, Object> found = new LinkedHashMap<>();
    found.put("messages", s.count());
    found.put("instruments", s.instruments());
    if (s.renumber() != null) {
      found.put("symbols", s.symbols());
    }
    found.put("framing", s.framing().name());
    found.put("priceLevelsNeeded", s.maxLevels());
    found.put("liveOrdersNeeded", s.maxLiveOrders());
    Map<String, Long> types = new LinkedHashMap<>();
    for (char t : Itch.TYPES.toCharArray()) {
      if (s.countsByType()[t] > 0) {
        types.put(String.valueOf(t), s.countsByType()[t]);
      }
    }
    found.put("messagesByType", types);
    Path file = in.path().toAbsolutePath();
    return Optional.of(new InputFingerprint(file.toString(), s.sha256(), s.bytes(), s.format(), found, List.of(
        new InputFingerprint.File(file.getFileName().toString(), file.toString(), s.sha256(), s.bytes()))));
  }

  /** {@code p} with the books sized for the scanned data: enough price levels a side and order-table slots. */
  HftLobWorkload.Params sized(HftLobWorkload.Params p, ItchInput s) {
    int needed = Math.max(10, s.maxLevels());
    if (bookDepth > 0 && needed > bookDepth) {
      throw new IllegalArgumentException("hft-lob: " + in.path() + " needs " + needed + " price levels a side (first"
          + " reached by " + s.levelsWhere() + "), more than book-depth " + bookDepth);
    }
    if (needed > 4096) {
      throw new IllegalArgumentException("hft-lob: " + in.path() + " needs " + needed + " price levels a side (first"
          + " reached by " + s.levelsWhere() + "), more than the books hold (4096)");
    }
    int levels = bookDepth > 0 ? bookDepth : Math.max(p.levels(), needed);
    // a table at most half full keeps the probes short; one slot always stays empty
    int log = Math.max(p.logOrderSlots(), 64 - Long.numberOfLeadingZeros(Math.max(1, 2L * s.maxLiveOrders() - 1)));
    if (log > MAX_LOG_SLOTS) {
      throw new IllegalArgumentException("hft-lob: " + in.path() + " has a book of " + s.maxLiveOrders() + " live"
          + " orders, more than the order tables hold (" + (1 << (MAX_LOG_SLOTS - 1)) + ")");
    }
    return new HftLobWorkload.Params(p.seed(), s.instruments(), s.count(), p.batchMessages(), log, levels,
        p.weightSeed(), null);
  }

  @Override
  public String toString() {
    return "HftInput[" + in + ", pick " + pick + ", book-depth " + bookDepth + "]";
  }
}
