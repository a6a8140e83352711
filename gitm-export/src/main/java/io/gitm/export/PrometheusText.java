package io.gitm.export;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The board's families in the Prometheus text exposition format, version 0.0.4 (what dcgm-exporter serves), written
 * by Micrometer's Prometheus registry. Each point of a family is a meter of the registry, tagged with the point's
 * labels and reading the value the last scrape gave it; a point that is gone is removed before the registry is
 * written. A family with no point is left out.
 *
 * <p>A counter is a Micrometer counter, which the format names with a {@code _total} suffix; a counter whose name has
 * none in that spelling (dcgm-exporter's {@code DCGM_FI_DEV_ECC_*_TOTAL}) is a gauge, so that its series keeps
 * dcgm-exporter's name. A family named {@code …_info} (always 1, its labels the information) is an info metric of
 * Prometheus' client beside the registry's meters, since a meter may not carry that suffix.
 */
final class PrometheusText {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /** A point's place in the registry: its family and label values. */
  private record Key(String family, List<String> labelValues) {}

  /** What one meter reads: the value the latest scrape gave its point. */
  private static final class Slot {
    private volatile double value;
    private Meter meter;

    double value() {
      return value;
    }
  }

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<Key, Slot> slots = new HashMap<>();
  /** The latest points of each info family, by name; a family is registered the first time it has a point. */
  private final Map<String, List<Family.Point>> infos = new HashMap<>();

  /** The exposition of {@code families}, as one scrape returns it. */
  synchronized String write(List<Family> families) {
    Set<Key> seen = new HashSet<>();
    infos.replaceAll((name, points) -> List.of());
    for (Family f : families) {
      if (f.name().endsWith(INFO)) {
        info(f);
        continue;
      }
      for (Family.Point p : f.points()) {
        Key k = new Key(f.name(), p.labelValues());
        seen.add(k);
        Slot s = slots.get(k);
        if (s == null) {
          s = new Slot();
          s.meter = register(f, p, s);
          slots.put(k, s);
        }
        s.value = p.value();
      }
    }
    for (Iterator<Map.Entry<Key, Slot>> it = slots.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Key, Slot> e = it.next();
      if (!seen.contains(e.getKey())) {
        registry.remove(e.getValue().meter);
        it.remove();
      }
    }
    return registry.scrape();
  }

  private static final String INFO = "_info";

  private void info(Family f) {
    if (f.points().isEmpty()) {
      return;
    }
    if (!infos.containsKey(f.name())) {
      String name = f.name().substring(0, f.name().length() - INFO.length());
      registry.getPrometheusRegistry().register(() -> {
        InfoSnapshot.Builder b = InfoSnapshot.builder().name(name).help(f.help());
        synchronized (this) {
          for (Family.Point p : infos.getOrDefault(f.name(), List.of())) {
            b.dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(Labels.of(p.labelNames(),
                p.labelValues())).build());
          }
        }
        return b.build();
      });
    }
    infos.put(f.name(), f.points());
  }

  private Meter register(Family f, Family.Point p, Slot s) {
    List<Tag> tags = new ArrayList<>(p.labelNames().size());
    for (int i = 0; i < p.labelNames().size(); i++) {
      tags.add(Tag.of(p.labelNames().get(i), p.labelValues().get(i)));
    }
    if (f.type() == Family.Type.COUNTER && f.name().endsWith("_total")) {
      return FunctionCounter.builder(f.name(), s, Slot::value).description(f.help()).tags(tags).register(registry);
    }
    return Gauge.builder(f.name(), s, Slot::value).description(f.help()).tags(tags).strongReference(true)
        .register(registry);
  }

  /** Whether {@code name} is a valid metric name: {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. */
  static boolean validMetricName(String name) {
    return name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*");
  }

  /** Whether {@code name} is a valid label name: {@code [a-zA-Z_][a-zA-Z0-9_]*}, not starting with {@code __}. */
  static boolean validLabelName(String name) {
    return name.matches("[a-zA-Z_][a-zA-Z0-9_]*") && !name.startsWith("__");
  }
}
