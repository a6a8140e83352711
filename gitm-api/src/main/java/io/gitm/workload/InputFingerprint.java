package io.gitm.workload;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a run read as its workload's input: the path given, the sha256 and size of its bytes as stored, the format
 * the workload detected, what it found in it (counts, sizes), and each file it read, for the run folder, the report
 * and the store's copy of the input in S3.
 *
 * @param sha256 one file's own sha256, or for several the sha256 of their sorted {@code sha256  name} listing
 * @param files every file read, by name (its path relative to the input's root); empty when not known
 */
public record InputFingerprint(String path, String sha256, long bytes, String format, Map<String, Object> found,
    List<File> files) {
  public InputFingerprint {
    found = Collections.unmodifiableMap(new LinkedHashMap<>(found)); // in the workload's order
    files = List.copyOf(files);
  }

  /**
   * One file of the input.
   *
   * @param name its path relative to the input's root, with {@code /} separators (a lone file: its name)
   * @param file where it is, absolute
   */
  public record File(String name, String file, String sha256, long bytes) {}
}
