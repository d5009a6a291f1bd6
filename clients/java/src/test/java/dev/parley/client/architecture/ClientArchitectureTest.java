package dev.parley.client.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

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
}
