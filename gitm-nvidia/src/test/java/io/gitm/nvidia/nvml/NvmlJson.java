package io.gitm.nvidia.nvml;

import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Writes NVML samples as the JSON fixtures the lead commits as test resources (no JSON library in this module). */
final class NvmlJson {
  private NvmlJson() {
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  static String fixture(String scenario, String driver, String device, String uuid, Map<StateField, String> unsupported,
      List<StateSample> samples) {
    StringBuilder b = new StringBuilder("{\n");
    b.append("  \"scenario\": ").append(quote(scenario)).append(",\n");
    b.append("  \"driver\": ").append(quote(driver)).append(",\n");
    b.append("  \"device\": ").append(quote(device)).append(",\n");
    b.append("  \"uuid\": ").append(quote(uuid)).append(",\n");
    b.append("  \"units\": {").append(java.util.Arrays.stream(StateField.values())
        .map(f -> quote(f.name()) + ": " + quote(f.unit())).collect(Collectors.joining(", "))).append("},\n");
    b.append("  \"unsupported\": {").append(unsupported.entrySet().stream()
        .map(e -> quote(e.getKey().name()) + ": " + quote(e.getValue())).collect(Collectors.joining(", ")))
        .append("},\n");
    b.append("  \"samples\": [\n");
    for (int i = 0; i < samples.size(); i++) {
      StateSample s = samples.get(i);
      b.append("    {\"device\": ").append(s.device()).append(", \"timeNs\": ").append(s.timeNs())
          .append(", \"values\": {").append(s.present().entrySet().stream()
              .map(e -> quote(e.getKey().name()) + ": " + number(e.getValue())).collect(Collectors.joining(", ")))
          .append("}}").append(i + 1 < samples.size() ? ",\n" : "\n");
    }
    return b.append("  ]\n}\n").toString();
  }

  private static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}
