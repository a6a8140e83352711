package io.gitm.analysis.attribution;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One piece of evidence behind a claim: what kind it is ({@code invariant}, {@code granger}, {@code aipw},
 * {@code trace}, {@code telemetry}), a sentence a person reads, and the figures and record references it rests on.
 */
public record Evidence(String kind, String summary, Map<String, Object> data) {
  public Evidence {
    if (kind == null || kind.isBlank() || summary == null) {
      throw new IllegalArgumentException("evidence needs a kind and a summary");
    }
    data = data == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(data));
  }
}
