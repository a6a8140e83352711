package io.gitm.cli;

import io.gitm.api.Budget;
import io.gitm.api.Target;
import picocli.CommandLine;

/** picocli converters whose failures become one-line usage errors (exit 2). */
final class Converters {
  private Converters() {}

  static final class BudgetConverter implements CommandLine.ITypeConverter<Budget> {
    @Override
    public Budget convert(String value) {
      try {
        return Budget.parse(value).requireRunnable();
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  static final class TargetConverter implements CommandLine.ITypeConverter<Target> {
    @Override
    public Target convert(String value) {
      try {
        return Target.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
