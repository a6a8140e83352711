/**
 * Managed workloads: a {@link io.gitm.workload.Workload} (found by {@code ServiceLoader}) runs in gitm's process on
 * the runtime facade, under an {@link io.gitm.workload.ExecutionConfig} that changes how it executes, never what.
 */
@NullMarked
package io.gitm.workload;

import org.jspecify.annotations.NullMarked;
