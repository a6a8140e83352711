/**
 * Device telemetry: the {@link io.gitm.telemetry.TelemetryLoop} that samples device state at a fixed rate on its own
 * thread, the {@link io.gitm.telemetry.SampleRing} of the latest samples, and the sinks that receive each one.
 */
@NullMarked
package io.gitm.telemetry;

import org.jspecify.annotations.NullMarked;
