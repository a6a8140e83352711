package io.gitm.export;

import io.gitm.trace.StateField;
import java.util.List;

/**
 * The exported name of each device state field. A field that NVIDIA's dcgm-exporter also exports has its DCGM name,
 * type and unit (frame buffer in MiB, power in W, clocks in MHz, temperature in °C, utilization in %, PCIe and NVLink
 * throughput in bytes per second as the {@code DCGM_FI_PROF_*} fields), so that a dashboard built on dcgm-exporter
 * reads gitm's series unchanged; the others are named {@code gitm_dev_*}.
 *
 * @param scale what the sample's value (in the {@link StateField}'s unit) is multiplied by
 * @param otelUnit the unit in UCUM, as OTLP carries it
 */
record StateMetric(StateField field, String name, Family.Type type, double scale, String otelUnit, String help) {
  private static final double MIB = 1.0 / (1 << 20);

  /** One per {@link StateField}, in its order. */
  static final List<StateMetric> ALL = List.of(
      new StateMetric(StateField.GPU_UTILIZATION, "DCGM_FI_DEV_GPU_UTIL", Family.Type.GAUGE, 1, "%",
          "GPU utilization (in %)."),
      new StateMetric(StateField.MEMORY_UTILIZATION, "DCGM_FI_DEV_MEM_COPY_UTIL", Family.Type.GAUGE, 1, "%",
          "Memory utilization (in %)."),
      new StateMetric(StateField.MEMORY_USED, "DCGM_FI_DEV_FB_USED", Family.Type.GAUGE, MIB, "MiBy",
          "Framebuffer memory used (in MiB)."),
      new StateMetric(StateField.MEMORY_FREE, "DCGM_FI_DEV_FB_FREE", Family.Type.GAUGE, MIB, "MiBy",
          "Framebuffer memory free (in MiB)."),
      new StateMetric(StateField.MEMORY_TOTAL, "DCGM_FI_DEV_FB_TOTAL", Family.Type.GAUGE, MIB, "MiBy",
          "Framebuffer memory total (in MiB)."),
      new StateMetric(StateField.POWER, "DCGM_FI_DEV_POWER_USAGE", Family.Type.GAUGE, 1, "W", "Power draw (in W)."),
      new StateMetric(StateField.POWER_LIMIT, "DCGM_FI_DEV_POWER_MGMT_LIMIT", Family.Type.GAUGE, 1, "W",
          "Enforced power limit (in W)."),
      new StateMetric(StateField.SM_CLOCK, "DCGM_FI_DEV_SM_CLOCK", Family.Type.GAUGE, 1, "MHz",
          "SM clock frequency (in MHz)."),
      new StateMetric(StateField.MEMORY_CLOCK, "DCGM_FI_DEV_MEM_CLOCK", Family.Type.GAUGE, 1, "MHz",
          "Memory clock frequency (in MHz)."),
      new StateMetric(StateField.GRAPHICS_CLOCK, "gitm_dev_graphics_clock", Family.Type.GAUGE, 1, "MHz",
          "Graphics clock frequency (in MHz)."),
      new StateMetric(StateField.TEMPERATURE, "DCGM_FI_DEV_GPU_TEMP", Family.Type.GAUGE, 1, "Cel",
          "GPU temperature (in C)."),
      new StateMetric(StateField.CLOCK_EVENT_REASONS, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", Family.Type.GAUGE, 1, "1",
          "Throttling reasons: the NVML clock-event reason bits (1 idle, 4 SW power cap, 8 HW slowdown, 32 SW thermal,"
              + " 64 HW thermal, 128 HW power brake)."),
      new StateMetric(StateField.PCIE_TX, "DCGM_FI_PROF_PCIE_TX_BYTES", Family.Type.GAUGE, 1, "By/s",
          "The rate of data transmitted over the PCIe bus (in bytes per second)."),
      new StateMetric(StateField.PCIE_RX, "DCGM_FI_PROF_PCIE_RX_BYTES", Family.Type.GAUGE, 1, "By/s",
          "The rate of data received over the PCIe bus (in bytes per second)."),
      new StateMetric(StateField.NVLINK_TX, "DCGM_FI_PROF_NVLINK_TX_BYTES", Family.Type.GAUGE, 1, "By/s",
          "The rate of data transmitted over NVLink (in bytes per second)."),
      new StateMetric(StateField.NVLINK_RX, "DCGM_FI_PROF_NVLINK_RX_BYTES", Family.Type.GAUGE, 1, "By/s",
          "The rate of data received over NVLink (in bytes per second)."),
      new StateMetric(StateField.ECC_VOLATILE_CORRECTED, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", Family.Type.COUNTER, 1, "1",
          "Total number of single-bit volatile ECC errors."),
      new StateMetric(StateField.ECC_VOLATILE_UNCORRECTED, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", Family.Type.COUNTER, 1,
          "1", "Total number of double-bit volatile ECC errors."),
      new StateMetric(StateField.ECC_AGGREGATE_CORRECTED, "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", Family.Type.COUNTER, 1,
          "1", "Total number of single-bit persistent ECC errors."),
      new StateMetric(StateField.ECC_AGGREGATE_UNCORRECTED, "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", Family.Type.COUNTER, 1,
          "1", "Total number of double-bit persistent ECC errors."),
      new StateMetric(StateField.RETIRED_PAGES, "gitm_dev_retired_pages", Family.Type.GAUGE, 1, "1",
          "Pages retired for ECC errors (single- and double-bit together)."),
      new StateMetric(StateField.REMAPPED_ROWS, "gitm_dev_remapped_rows", Family.Type.GAUGE, 1, "1",
          "Rows remapped for ECC errors (correctable and uncorrectable together)."),
      new StateMetric(StateField.OTHER_PROCESSES, "gitm_dev_other_processes", Family.Type.GAUGE, 1, "1",
          "Compute processes on the device that are not the job's (a neighbour sharing it)."),
      new StateMetric(StateField.OTHER_SM_UTILIZATION, "gitm_dev_other_sm_util", Family.Type.GAUGE, 1, "%",
          "SM utilization of the device's other compute processes, summed (in %)."));

  static {
    for (int i = 0; i < ALL.size(); i++) {
      if (ALL.get(i).field().ordinal() != i) {
        throw new AssertionError("StateMetric.ALL is out of StateField's order at " + i);
      }
    }
    if (ALL.size() != StateField.values().length) {
      throw new AssertionError("StateMetric.ALL misses a StateField");
    }
  }
}
