package io.gitm.cli;

import java.util.concurrent.Callable;

/**
 * A subcommand that an optional extra brings (the {@code bench} extra: gitm-bench), found on the class path by
 * {@code ServiceLoader} and added to {@code gitm}'s commands. Its class carries picocli's {@code @Command}.
 */
public interface ExtraCommand extends Callable<Integer> {
}
