/**
 * The device SPI and the runtime facade. A {@link io.gitm.device.DeviceProvider} (found by {@code ServiceLoader})
 * opens a {@link io.gitm.device.Device}: streams, memory, copies, kernels, events, graphs, cuBLAS-style GEMMs,
 * state sampling and event tracing. Managed workloads are written once against this facade and run unchanged on
 * the real backends ({@code nvidia}) and the simulated one ({@code sim}); levers change how they execute by
 * changing the calls the facade receives, never the workload's code.
 */
@NullMarked
package io.gitm.device;

import org.jspecify.annotations.NullMarked;
