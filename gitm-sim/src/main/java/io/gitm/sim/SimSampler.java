package io.gitm.sim;

import io.gitm.device.MemInfo;
import io.gitm.device.StateSampler;
import io.gitm.trace.ClockReason;
import io.gitm.trace.StateField;
import io.gitm.trace.StateSample;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The simulated device's state sampler: what NVML would report at the host's present time, read from the device's
 * activity, its governor (clocks, power, temperature), its memory and the other tenants of its faults.
 */
final class SimSampler implements StateSampler {
  /** The window utilization and PCIe rates are averaged over. */
  private static final long UTIL_WINDOW_NS = 1_000_000_000L;
  /** The window without any kernel after which the device reads as idle. */
  private static final long IDLE_WINDOW_NS = 100_000_000L;

  private final SimContext ctx;
  private final SimSpec spec;
  private final SimScheduler scheduler;
  private final Allocator allocator;

  SimSampler(SimContext ctx, SimScheduler scheduler, Allocator allocator) {
    this.ctx = ctx;
    this.spec = ctx.spec;
    this.scheduler = scheduler;
    this.allocator = allocator;
  }

  @Override
  public Set<StateField> supported() {
    return EnumSet.of(StateField.GPU_UTILIZATION, StateField.MEMORY_UTILIZATION, StateField.MEMORY_USED,
        StateField.MEMORY_FREE, StateField.MEMORY_TOTAL, StateField.POWER, StateField.POWER_LIMIT,
        StateField.SM_CLOCK, StateField.GRAPHICS_CLOCK, StateField.TEMPERATURE, StateField.CLOCK_EVENT_REASONS,
        StateField.PCIE_TX, StateField.PCIE_RX, StateField.RETIRED_PAGES, StateField.OTHER_PROCESSES,
        StateField.OTHER_SM_UTILIZATION);
  }

  @Override
  public StateSample sample() {
    synchronized (ctx.device) {
      return sampleNow();
    }
  }

  private StateSample sampleNow() {
    long host = ctx.host;
    Activity activity = scheduler.activity;
    Governor governor = scheduler.governor;
    governor.advance(host, activity);
    long from = Math.max(0, host - UTIL_WINDOW_NS);
    double util = host == 0 ? 0 : activity.utilization(from, host);
    double recent = host == 0 ? 0 : activity.utilization(Math.max(0, host - IDLE_WINDOW_NS), host);
    boolean idle = recent == 0;
    double clock = idle ? Math.min(spec.idleClockMHz(), governor.clockMHz()) : governor.clockMHz();
    long reasons = governor.reasons() | (idle ? ClockReason.GPU_IDLE : 0);
    Map<StateField, Double> m = new LinkedHashMap<>();
    m.put(StateField.GPU_UTILIZATION, Math.rint(util * 100));
    m.put(StateField.MEMORY_UTILIZATION, Math.rint(activity.memoryUtilization(from, host) * 100));
    MemInfo mi = allocator.memInfo();
    m.put(StateField.MEMORY_USED, (double) mi.usedBytes());
    m.put(StateField.MEMORY_FREE, (double) mi.freeBytes());
    m.put(StateField.MEMORY_TOTAL, (double) mi.totalBytes());
    m.put(StateField.POWER, Math.round(governor.powerW() * 1000) / 1000.0);
    m.put(StateField.POWER_LIMIT, governor.powerLimitW());
    m.put(StateField.SM_CLOCK, Math.rint(clock));
    m.put(StateField.GRAPHICS_CLOCK, Math.rint(clock));
    m.put(StateField.TEMPERATURE, Math.rint(governor.temperatureC()));
    m.put(StateField.CLOCK_EVENT_REASONS, (double) reasons);
    m.put(StateField.PCIE_TX, Math.rint(activity.txRate(from, host)));
    m.put(StateField.PCIE_RX, Math.rint(activity.rxRate(from, host)));
    InjectedFault ecc = ctx.fault("ecc-retirement");
    m.put(StateField.RETIRED_PAGES, ecc == null ? 0.0 : ecc.param("pages"));
    putOtherTenants(m);
    return StateSample.of(SimDevice.DEVICE, host, m);
  }

  /**
   * The other tenants, present while their faults are active: the noisy neighbour, using the SMs it holds, and the
   * time-slicing context, using the whole device for its share of the time.
   */
  private void putOtherTenants(Map<StateField, Double> m) {
    TimeSlices slices = ctx.slices;
    int sms = spec.hardware().multiprocessors();
    int held = sms - scheduler.smsAvailable();
    boolean slicing = slices != null && slices.activeAt(ctx.host);
    m.put(StateField.OTHER_PROCESSES, (ctx.fault("noisy-neighbour") != null ? 1.0 : 0.0) + (slicing ? 1.0 : 0.0));
    m.put(StateField.OTHER_SM_UTILIZATION,
        Math.rint(Math.min(100.0, 100.0 * held / sms + (slicing ? 100.0 * slices.otherShare() : 0.0))));
  }
}
