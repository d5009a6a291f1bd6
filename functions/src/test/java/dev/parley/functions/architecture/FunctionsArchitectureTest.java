package dev.parley.functions.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shape of functions/: handlers parse and call use cases; use cases are plain Java over the
 * ports; adapters implement the ports with the AWS SDK; nothing shipped leans on test or
 * development-only code.
 */
@AnalyzeClasses(packages = {"dev.parley.functions", "dev.parley.ports"}, importOptions = ImportOption.DoNotIncludeTests.class)
class FunctionsArchitectureTest {
    /** A class longer than this is doing more than one thing. */
    private static final int MAX_LINES = 250;

    @ArchTest
    static final ArchRule handlersCallUseCasesWhichCallPorts = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("Manifest").definedBy("dev.parley.functions.manifest..")
            .layer("Handlers").definedBy("dev.parley.functions.handler..")
            .layer("UseCases").definedBy("dev.parley.functions.usecase..")
            .layer("Adapters").definedBy("dev.parley.functions.store..")
            .layer("Ports").definedBy("dev.parley.ports..")
            .whereLayer("Manifest").mayNotBeAccessedByAnyLayer()
            .whereLayer("Handlers").mayOnlyBeAccessedByLayers("Manifest")
            .whereLayer("UseCases").mayOnlyBeAccessedByLayers("Handlers")
            .whereLayer("Adapters").mayOnlyBeAccessedByLayers("Handlers", "Manifest")
            .whereLayer("Ports").mayOnlyBeAccessedByLayers("Handlers", "UseCases", "Adapters");

    @ArchTest
    static final ArchRule useCasesArePlainJava = noClasses().that().resideInAPackage("dev.parley.functions.usecase..")
            .should().dependOnClassesThat().resideInAnyPackage("software.amazon..", "com.amazonaws..",
                    "dev.parley.functions.config..", "dev.parley.functions.store..", "dev.parley.functions.handler..")
            .because("a use case runs on the ports alone, testable without AWS");

    @ArchTest
    static final ArchRule useCasesLogOnlyThroughSlf4j = noClasses().that().resideInAPackage("dev.parley.functions.usecase..")
            .should().dependOnClassesThat(resideInAPackage("dev.parley.functions.observability..").and(not(simpleName("LogFields"))))
            .because("Telemetry is Powertools: a use case sets correlation ids (LogFields) and leaves metrics to its handler");

    @ArchTest
    static final ArchRule nothingShippedUsesTestOrDevelopmentCode = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage("dev.parley.testsupport..", "dev.parley.local..", "org.junit..", "org.assertj..")
            .orShould().dependOnClassesThat().haveSimpleNameEndingWith("DevTokens")
            .orShould().dependOnClassesThat().haveSimpleName("ManualClock")
            .because("the Lambda artifact carries production code only: no development secret, no test clock");

    @ArchTest
    static final ArchRule noPackageCycles = slices().matching("dev.parley.functions.(*)..").should().beFreeOfCycles();

    @Test
    void noClassIsOverTwoHundredAndFiftyLines() throws IOException {
        List<String> tooLong;
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            tooLong = sources.filter(path -> path.toString().endsWith(".java")).filter(path -> lines(path) > MAX_LINES)
                    .map(path -> path + " (" + lines(path) + " lines)").toList();
        }
        assertThat(tooLong).as("classes over " + MAX_LINES + " lines").isEmpty();
    }

    private static long lines(Path path) {
        try (Stream<String> lines = Files.lines(path)) {
            return lines.count();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
