package io.gitm.export;

import java.util.List;

/**
 * A metric family as one scrape or push sees it: name, type, help, and one point per label set. Both outputs are
 * written from families: the Prometheus text format and the OTLP instruments.
 *
 * @param otelUnit the unit in UCUM ({@code "1"} when dimensionless)
 */
record Family(String name, Type type, String help, String otelUnit, List<Point> points) {
  Family {
    points = List.copyOf(points);
  }

  enum Type {
    GAUGE, COUNTER;

    String prometheus() {
      return this == GAUGE ? "gauge" : "counter";
    }
  }

  /** A value and its labels, names and values in the same order. */
  record Point(List<String> labelNames, List<String> labelValues, double value) {
    Point {
      if (labelNames.size() != labelValues.size()) {
        throw new IllegalArgumentException(labelNames.size() + " label names for " + labelValues.size() + " values");
      }
    }

    static Point of(double value) {
      return new Point(List.of(), List.of(), value);
    }

    static Point of(double value, String name, String labelValue) {
      return new Point(List.of(name), List.of(labelValue), value);
    }
  }
}
