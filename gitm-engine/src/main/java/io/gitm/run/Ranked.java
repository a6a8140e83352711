package io.gitm.run;

import io.gitm.levers.LeverContext;
import io.gitm.levers.Setup;
import io.gitm.rank.Candidate;
import io.gitm.rank.Counterfactual;
import io.gitm.rank.Qualification;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the rank phase leaves to the apply phase and the report: the levers as the agent is given them, best first,
 * and what the target's reachability was judged on.
 *
 * @param context what the levers check their preconditions against, for the shipped setup
 * @param expectations per lever id, the facts its own expected gain was read from, in words
 *     ({@link io.gitm.levers.Lever#expectationBasis}); levers without an estimate of their own are absent
 * @param reused whether the ranking was the interrupted run's, from its journal
 * @param replayed whether counterfactual replay predicted the levers (else only priors did)
 * @param replay the counterfactual replay of the trace, prepared once on first use: by the ranking, then by the
 *     agent's trials
 */
record Ranked(LeverContext context, Setup shipped, List<Candidate> candidates, Ranking ranking,
    Qualification qualification, Map<String, String> expectations, boolean reused, boolean replayed,
    Supplier<Optional<Counterfactual>> replay) {}
