package io.gitm.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The conventions of the house that the compiler does not hold, checked on the main classes of every module (this
 * module's test class path holds them all): where {@code java.lang.foreign} and the host clock may be used, the
 * pipeline order of the packages, and no package cycles.
 */
@AnalyzeClasses(packages = "io.gitm", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  /** The packages that bind native code: the NVIDIA libraries and the OS (process groups, CPU affinity). */
  private static final String[] BINDINGS = {"io.gitm.nvidia..", "io.gitm.os"};

  /**
   * The classes that may read the host clock themselves, each for its reason. Everything else reads time through a
   * {@code Ticker} it is given, so that tests drive time by hand and the simulated device supplies its own.
   */
  private static final Set<String> CLOCK_READERS = Set.of(
      // the ticker itself: Ticker.system() is the host's monotonic clock
      "io.gitm.api.Ticker",
      // the moment main() is entered, read before anything that could be handed a ticker exists
      "io.gitm.cli.Main",
      // the host time a replay took, printed beside the simulated time it stands for
      "io.gitm.cli.TraceReplayCommand");

  /** The benchmarks measure gitm's own cost on the host, so the host clock is what they time against. */
  private static final String BENCHMARKS = "io.gitm.bench..";

  /**
   * The pipeline floors, lowest first. A floor may use only the floors below it; the two backends beside the
   * pipeline (nvidia, workloads) stand on the trace schema and the device SPI only, and only the command line and
   * the bench reach them.
   */
  private static final List<Floor> FLOORS = List.of(
      new Floor("api", "io.gitm.api"),
      new Floor("trace", "io.gitm.trace"),
      new Floor("device", "io.gitm.device"),
      new Floor("workload", "io.gitm.workload"),
      new Floor("stats", "io.gitm.stats"),
      new Floor("sim", "io.gitm.sim"),
      new Floor("store", "io.gitm.store"),
      new Floor("store.s3", "io.gitm.store.s3"),
      new Floor("tracer", "io.gitm.tracer"),
      new Floor("telemetry", "io.gitm.telemetry"),
      new Floor("os", "io.gitm.os"),
      new Floor("planner", "io.gitm.planner"),
      new Floor("analysis.monitor", "io.gitm.analysis.monitor"),
      new Floor("analysis.attribution", "io.gitm.analysis.attribution"),
      new Floor("analysis.critical", "io.gitm.analysis.critical"),
      new Floor("analysis", "io.gitm.analysis"),
      new Floor("analysis.breakdown", "io.gitm.analysis.breakdown"),
      new Floor("levers", "io.gitm.levers"),
      new Floor("rank", "io.gitm.rank"),
      new Floor("job.output", "io.gitm.job.output"),
      new Floor("job", "io.gitm.job"),
      new Floor("search", "io.gitm.search"),
      new Floor("report", "io.gitm.report"),
      new Floor("run", "io.gitm.run"),
      new Floor("gitm", "io.gitm"),
      new Floor("export", "io.gitm.export"),
      new Floor("cli", "io.gitm.cli"),
      new Floor("bench", BENCHMARKS));

  private static final Floor NVIDIA = new Floor("nvidia", "io.gitm.nvidia..");
  private static final Floor WORKLOADS = new Floor("workloads", "io.gitm.workloads..");

  /** A floor: a layer of one package (or a package and its subpackages, for the backends and the bench). */
  private record Floor(String name, String packages) {}

  @ArchTest
  static final ArchRule foreignMemoryOnlyInBindings = noClasses()
      .that().resideOutsideOfPackages(BINDINGS)
      .should().dependOnClassesThat().resideInAPackage("java.lang.foreign..")
      .because("native code is bound in io.gitm.nvidia and io.gitm.os only");

  @ArchTest
  static final ArchRule hostClockOnlyThroughTheTicker = noClasses()
      .that(readsTheClockForItsOwnReason().negate())
      .should(readTheHostClock())
      .because("time is read through io.gitm.api.Ticker, so that tests and the simulated device control it");

  @ArchTest
  static final ArchRule packagesFollowThePipeline = pipeline()
      .because("a stage uses only the stages below it (docs/ARCHITECTURE.md)");

  /** The levers describe what they change; replaying that change on the device model is the ranking's business. */
  @ArchTest
  static final ArchRule leversDoNotImportTheSimulator = noClasses()
      .that().resideInAPackage("io.gitm.levers")
      .should().dependOnClassesThat().resideInAPackage("io.gitm.sim..")
      .because("a lever states its effect; io.gitm.rank replays it on the simulated device");

  /**
   * The simulated device is a backend found by ServiceLoader; besides that, the model is used for three things:
   * replaying a trace (rank), running a workload's host program before the job runs (planner, and the CLI's plan),
   * and the presets' ceilings (analysis's Ceilings, the run's choice of a replay spec).
   */
  @ArchTest
  static final ArchRule onlyTheModelsUsersImportTheSimulator = noClasses()
      .that().resideOutsideOfPackages("io.gitm.sim..", "io.gitm.rank", "io.gitm.planner", "io.gitm.analysis",
          "io.gitm.run", "io.gitm.cli", BENCHMARKS)
      .should().dependOnClassesThat().resideInAPackage("io.gitm.sim..")
      .because("the simulator is a backend; only replay, the planner and the presets use its model directly");

  @ArchTest
  static final ArchRule noPackageCycles = slices().assignedFrom(packages()).should().beFreeOfCycles();

  private static LayeredArchitecture pipeline() {
    LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers()
        .ensureAllClassesAreContainedInArchitecture();
    List<Floor> all = new ArrayList<>(FLOORS);
    all.add(NVIDIA);
    all.add(WORKLOADS);
    for (Floor f : all) {
      layers = layers.layer(f.name()).definedBy(f.packages());
    }
    List<String> below = new ArrayList<>();
    for (Floor f : FLOORS) {
      List<String> allowed = new ArrayList<>(below);
      if (f.name().equals("cli") || f.name().equals("bench")) {
        allowed.add(NVIDIA.name());
      }
      if (f.name().equals("bench")) {
        allowed.add(WORKLOADS.name());
      }
      layers = allowed.isEmpty() ? layers.whereLayer(f.name()).mayNotAccessAnyLayer()
          : layers.whereLayer(f.name()).mayOnlyAccessLayers(allowed.toArray(String[]::new));
      below.add(f.name());
    }
    layers = layers.whereLayer(NVIDIA.name()).mayOnlyAccessLayers("api", "trace", "device");
    return layers.whereLayer(WORKLOADS.name()).mayOnlyAccessLayers("api", "trace", "device", "workload");
  }

  private static DescribedPredicate<JavaClass> readsTheClockForItsOwnReason() {
    return DescribedPredicate.describe("read the host clock for a reason of their own",
        c -> CLOCK_READERS.contains(c.getName()) || c.getPackageName().startsWith("io.gitm.bench"));
  }

  /** Calls, and method references, to {@code System.nanoTime} or {@code System.currentTimeMillis}. */
  private static ArchCondition<JavaClass> readTheHostClock() {
    return new ArchCondition<>("read the host clock (System.nanoTime, System.currentTimeMillis)") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        for (JavaAccess<?> a : c.getAccessesFromSelf()) {
          boolean clock = a.getTargetOwner().isEquivalentTo(System.class)
              && (a.getName().equals("nanoTime") || a.getName().equals("currentTimeMillis"));
          if (clock) {
            events.add(SimpleConditionEvent.satisfied(a, a.getDescription()));
          }
        }
      }
    };
  }

  /** One slice per package of gitm's own. */
  private static SliceAssignment packages() {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        return c.getPackageName().startsWith("io.gitm") ? SliceIdentifier.of(c.getPackageName())
            : SliceIdentifier.ignore();
      }

      @Override
      public String getDescription() {
        return "the packages of io.gitm";
      }
    };
  }
}
