/**
 * The statistics every stage uses: sample summaries with their unit ({@link io.gitm.stats.Stats}), least squares
 * and logistic regression, the doubly robust effect estimate, Granger causality, stationarity and corrections for
 * many tests at once.
 */
@NullMarked
package io.gitm.stats;

import org.jspecify.annotations.NullMarked;
