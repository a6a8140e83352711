/**
 * The run: the five phases over a budget ({@code io.gitm.run}), the report ({@code io.gitm.report}) and the embedded
 * API ({@code io.gitm.Gitm}), which programs that embed gitm use with the report it returns.
 */
module gitm.engine {
  requires transitive gitm.levers;
  requires com.fasterxml.jackson.annotation;

  exports io.gitm;
  exports io.gitm.report;
  exports io.gitm.run to gitm.export, gitm.cli, gitm.bench;

  // the report and the run's records are Jackson-mapped
  opens io.gitm.report to tools.jackson.databind;
  opens io.gitm.run to tools.jackson.databind;
}
