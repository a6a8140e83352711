package io.gitm.analysis;

import io.gitm.device.HardwareSpec;
import io.gitm.sim.SimSpec;
import io.gitm.trace.DeviceKind;
import io.gitm.trace.TraceMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The ceilings a trace is judged against: for a simulated trace, its preset's; for a real one, what
 * {@code gitm calibrate} measured on that device (the store's {@code hardware/} file), else for an H200 the h200
 * preset (measured on the lent H200), else the datasheet ceilings of the same GPU model ({@link GpuModels}), else a
 * generic bound, the highest ceilings of that table — each choice said in {@link Choice#note()}.
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

  /**
   * The ceilings of the device the trace names: the h200 preset (measured on the lent H200) for an H200, else the
   * datasheet figures of its model ({@link GpuModels}), else a generic bound, the highest figures of that table.
   */
  private static Choice preset(TraceMeta meta, String why) {
    String name = meta.devices().isEmpty() ? "" : meta.devices().getFirst().name();
    if (GpuModels.isH200(name)) {
      HardwareSpec h200 = SimSpec.preset("h200").hardware();
      return new Choice(h200, why + "; judged against the h200 preset (" + h200.source() + ")");
    }
    Optional<GpuModels.GpuModel> model = GpuModels.of(name);
    if (model.isPresent()) {
      return new Choice(model.get().spec(), why + "; judged against the " + model.get().name() + " datasheet's"
          + " ceilings (" + model.get().source() + ")");
    }
    GpuModels.GpuModel generic = GpuModels.GENERIC;
    String which = name.isBlank() ? "the trace names no device model" : "'" + name + "' is not in the table of GPU"
        + " models";
    return new Choice(generic.spec(), why + "; " + which + ": judged against a generic bound, the highest ceilings"
        + " of the table (the " + generic.name() + " datasheet's: " + generic.source() + ")");
  }

  /** The hardware spec of a calibration file ({@code gitm calibrate} output, or its {@code spec} object alone). */
  public static HardwareSpec read(Path file) throws IOException {
    JsonMapper m = JsonMapper.builder().build();
    JsonNode root = m.readTree(Files.readAllBytes(file));
    JsonNode spec = root.has("spec") ? root.get("spec") : root;
    return m.treeToValue(spec, HardwareSpec.class);
  }
}
