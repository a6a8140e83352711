/**
 * The provenance report of a run: the {@link io.gitm.report.Report} model, which the run loop fills in,
 * and its renderings by {@link io.gitm.report.Reports} as Markdown, a self-contained HTML page with inline
 * SVG charts, and JSON ({@code docs/report-schema.md}). A report on the simulated device says so in every section.
 */
package io.gitm.report;
