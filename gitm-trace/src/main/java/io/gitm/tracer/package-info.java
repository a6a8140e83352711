/**
 * The tracer's formats: the streaming binary trace file ({@code .gtrace}, see {@code docs/trace-format.md}) with its
 * {@link io.gitm.tracer.TraceWriter} and {@link io.gitm.tracer.TraceReader}; export to Chrome/Perfetto JSON
 * ({@link io.gitm.tracer.PerfettoExporter}); import of PyTorch profiler (Kineto) JSON traces
 * ({@link io.gitm.tracer.KinetoImporter}); and a one-pass summary of a trace ({@link io.gitm.tracer.TraceSummary}).
 */
package io.gitm.tracer;
