package io.gitm.analysis;

import io.gitm.device.HardwareSpec;
import io.gitm.sim.SimSpec;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The ceilings a trace is judged against: for a simulated trace, its preset's; for a real one, what
 * {@code gitm calibrate} measured on that device (the store's {@code hardware/} file), else the documented preset
 * of the same GPU model, else the H200 preset — each choice said in {@link Choice#note()}.
 */
public final class Ceilings {
  private Ceilings() {}

  /** The ceilings and how they were chosen. */
  public record Choice(HardwareSpec spec, String note) {}

  /** {@code calibrated}: the store's file for the trace's first device, or null when there is none. */
  public static Choice forTrace(TraceMeta meta, Path calibrated) {
    if (meta.kind() == DeviceKind.SIMULATED) {
      String preset = meta.attributes().getOrDefault("preset", "h200");
      try {
        return new Choice(SimSpec.preset(preset).hardware(), "simulated preset " + preset);
      } catch (IllegalArgumentException e) {
        return new Choice(SimSpec.preset("h200").hardware(), "unknown simulated preset '" + preset
            + "': judged against the h200 preset");
      }
    }
    if (calibrated != null && Files.isRegularFile(calibrated)) {
      try {
        return new Choice(read(calibrated), "calibrated: " + calibrated.getFileName());
      } catch (IOException | RuntimeException e) {
        // fall through to a preset, saying why
        return preset(meta, "the calibration file " + calibrated + " could not be read (" + e.getMessage() + ")");
      }
    }
    return preset(meta, "no calibration of this device in the store (run `gitm calibrate`)");
  }

  private static Choice preset(TraceMeta meta, String why) {
    String name = meta.devices().isEmpty() ? "" : meta.devices().getFirst().name().toLowerCase(Locale.ROOT);
    String preset = name.contains("h100") ? "h100" : name.contains("a100") ? "a100" : "h200";
    return new Choice(SimSpec.preset(preset).hardware(), why + "; judged against the " + preset + " preset ("
        + SimSpec.preset(preset).hardware().source() + ")");
  }

  /** The hardware spec of a calibration file ({@code gitm calibrate} output, or its {@code spec} object alone). */
  public static HardwareSpec read(Path file) throws IOException {
    JsonMapper m = JsonMapper.builder().build();
    JsonNode root = m.readTree(Files.readAllBytes(file));
    JsonNode spec = root.has("spec") ? root.get("spec") : root;
    return m.treeToValue(spec, HardwareSpec.class);
  }
}
