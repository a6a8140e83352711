package io.gitm.run;

import io.gitm.trace.TraceRecord;
import java.util.List;

/**
 * The final setup's short trace for the report's "after" timeline, or why there is none.
 *
 * @param note what a reader should know about it (why it is missing, how it differs from the gates), or null
 */
record AfterTrace(List<TraceRecord> records, String note) {}
