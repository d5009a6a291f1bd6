package dev.parley.client.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** An app takes the client library and nothing of the server with it: the JDK (javax.crypto too, for media), Jackson and the shared model only. */
@AnalyzeClasses(packages = "dev.parley.client", importOptions = ImportOption.DoNotIncludeTests.class)
class ClientArchitectureTest {

    @ArchTest
    static final ArchRule onlyTheJdkJacksonAndTheSharedModel = classes()
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "javax.crypto..", "com.fasterxml.jackson..", "dev.parley.client..",
                    "dev.parley.model..", "dev.parley.protocol..")
            .because("the client must not carry the server's ports, functions, AWS or Jetty into an app");

    private static DescribedPredicate<JavaClass> part(String... simpleNames) {
        return DescribedPredicate.describe(String.join(", ", simpleNames), type -> java.util.Arrays.stream(simpleNames)
                .anyMatch(name -> type.getName().equals("dev.parley.client." + name) || type.getName().startsWith("dev.parley.client." + name + "$")));
    }

    /**
     * The client's parts in layers: the app's view over where the parts meet, over the parts (outbox, timelines, presence),
     * over requests, over the connection, over the one thread. A part never reaches up, so each can be read and changed alone.
     */
    @ArchTest
    static final ArchRule theClientsPartsAreLayered = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("App's view").definedBy(part("ParleyClient"))
            .layer("Session").definedBy(part("Session"))
            .layer("Parts").definedBy(part("Sender", "Receiving", "PresenceWatch"))
            .layer("Requests").definedBy(part("Requests"))
            .layer("Connection").definedBy(part("ConnectionKeeper"))
            .layer("Loop").definedBy(part("ClientLoop"))
            .whereLayer("App's view").mayNotBeAccessedByAnyLayer()
            .whereLayer("Session").mayOnlyBeAccessedByLayers("App's view")
            .whereLayer("Parts").mayOnlyBeAccessedByLayers("App's view", "Session")
            .whereLayer("Requests").mayOnlyBeAccessedByLayers("App's view", "Session", "Parts")
            .whereLayer("Connection").mayOnlyBeAccessedByLayers("App's view", "Session", "Parts", "Requests")
            .because("a new frame type is one change in one place: an answer in ParleyClient, a push in Session");

    @ArchTest
    static final ArchRule theOutboxDriverKnowsNoOtherPart = noClasses().that(part("Sender")).should()
            .dependOnClassesThat(part("Receiving", "PresenceWatch")).because("the parts meet in Session only");

    @ArchTest
    static final ArchRule theTimelinesKnowNoOtherPart = noClasses().that(part("Receiving")).should()
            .dependOnClassesThat(part("Sender", "PresenceWatch")).because("the parts meet in Session only");

    @ArchTest
    static final ArchRule presenceKnowsNoOtherPart = noClasses().that(part("PresenceWatch")).should()
            .dependOnClassesThat(part("Sender", "Receiving")).because("the parts meet in Session only");
}
