/**
 * What a run is given: its {@link io.gitm.api.Budget} of wall-clock time, the {@link io.gitm.api.Target} improvement
 * it commits to, and the {@link io.gitm.api.Ticker} it reads time through.
 */
@NullMarked
package io.gitm.api;

import org.jspecify.annotations.NullMarked;
