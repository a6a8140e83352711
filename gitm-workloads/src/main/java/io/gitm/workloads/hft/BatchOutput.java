package io.gitm.workloads.hft;

/**
 * What the pipeline outputs after one input batch, for every instrument: the top 10 levels of both sides
 * ({@link LobLayout#TOP} ints each), the features ({@link LobLayout#FEAT} longs each) and the signal.
 */
record BatchOutput(int[] top, long[] features, float[] signals) {
}
