package io.gitm.workload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How good a workload's output is against the ground truth its input carried (e.g. kitti's detections against the
 * frames' {@code label_2}): a table of values, one row per thing scored, and what the output came from, as the values
 * must be read.
 *
 * @param method how the values were computed, in one line (the benchmark's procedure, the frames scored)
 * @param model what produced the output (e.g. which weights), so that no reader takes the values for more than they
 *     are
 * @param columns the value columns' names
 * @param rows one per thing scored; a value is null where it is not defined (no ground truth to score against)
 */
public record OutputScore(String method, String model, List<String> columns, List<Row> rows) {
  public OutputScore {
    if (method == null || method.isBlank() || model == null || model.isBlank()) {
      throw new IllegalArgumentException("a score needs its method and what produced the output");
    }
    columns = List.copyOf(columns);
    rows = List.copyOf(rows);
    for (Row r : rows) {
      if (r.values().size() != columns.size()) {
        throw new IllegalArgumentException("score row '" + r.name() + "' has " + r.values().size() + " values for "
            + columns.size() + " columns");
      }
    }
  }

  /** One thing scored: its name and a value per column, null where undefined. */
  public record Row(String name, List<Double> values) {
    public Row {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("a score row needs a name");
      }
      values = Collections.unmodifiableList(new ArrayList<>(values)); // nulls kept
    }
  }
}
