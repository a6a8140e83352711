package io.gitm.workload;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a run read as its workload's input: the path given, the sha256 and size of its bytes as stored, the format
 * the workload detected, and what it found in it (counts, sizes), for the run folder and the report.
 */
public record InputFingerprint(String path, String sha256, long bytes, String format, Map<String, Object> found) {
  public InputFingerprint {
    found = Collections.unmodifiableMap(new LinkedHashMap<>(found)); // in the workload's order
  }
}
