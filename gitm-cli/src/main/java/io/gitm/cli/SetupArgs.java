package io.gitm.cli;

import io.gitm.levers.Lever;
import io.gitm.levers.LeverContext;
import io.gitm.levers.Levers;
import io.gitm.levers.Setup;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** Setups given on the command line as {@code ID[+ID...]}: lever ids applied in order to the shipped setup. */
final class SetupArgs {
  private SetupArgs() {}

  /** The levers of {@code ID[+ID...]}, each a known lever, none twice. */
  static List<Lever> parseIds(CommandLine cl, String option, String spec) {
    List<Lever> ls = new ArrayList<>();
    for (String id : spec.split("\\+", -1)) {
      if (id.isBlank()) {
        throw new CommandLine.ParameterException(cl, option + " '" + spec + "': an empty lever id");
      }
      Lever l;
      try {
        l = Levers.byId(id.strip());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cl, option + ": " + Main.oneLine(e.getMessage()));
      }
      if (ls.stream().anyMatch(x -> x.id().equals(l.id()))) {
        throw new CommandLine.ParameterException(cl, option + " '" + spec + "': " + l.id() + " twice");
      }
      ls.add(l);
    }
    return ls;
  }

  /** The shipped setup with {@code levers} applied in order, each required to apply on top of the ones before. */
  static Setup build(CommandLine cl, String option, List<Lever> levers, LeverContext shipped) {
    Setup s = Setup.shipped();
    List<String> done = new ArrayList<>();
    for (Lever l : levers) {
      Lever.Applicability a = l.check(shipped.withSetup(s));
      if (!a.applies()) {
        throw new CommandLine.ParameterException(cl, option + ": " + l.id() + " does not apply"
            + (done.isEmpty() ? " to the shipped setup" : " after " + String.join("+", done)) + ": " + a.reason());
      }
      s = l.apply(s, shipped.withSetup(s));
      done.add(l.id());
    }
    return s;
  }

}
