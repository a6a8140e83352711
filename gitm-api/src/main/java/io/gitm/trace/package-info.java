/**
 * The trace schema: the records a tracer writes and every stage reads ({@link io.gitm.trace.TraceRecord} and the
 * records it permits), the {@link io.gitm.trace.TraceMeta} of a trace, and the kinds and units they are given in.
 */
@NullMarked
package io.gitm.trace;

import org.jspecify.annotations.NullMarked;
