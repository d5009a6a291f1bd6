package dev.parley.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** shared-model is the contract every other module and every client shares: the JDK and Jackson, nothing else. */
@AnalyzeClasses(packages = "dev.parley", importOptions = ImportOption.DoNotIncludeTests.class)
class SharedModelArchitectureTest {

    @ArchTest
    static final ArchRule noAwsJettyOrLambdaTypes = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage(
                    "software.amazon..", "com.amazonaws..", "org.eclipse.jetty..", "jakarta.websocket..")
            .because("shared-model must not depend on AWS, Lambda or Jetty types");

    @ArchTest
    static final ArchRule onlyTheJdkAndJackson = classes()
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "com.fasterxml.jackson..", "dev.parley..")
            .because("shared-model depends on the JDK and Jackson only");

    @ArchTest
    static final ArchRule theDomainDoesNotKnowTheWire = noClasses().that().resideInAPackage("dev.parley.model..")
            .should().dependOnClassesThat().resideInAPackage("dev.parley.protocol..")
            .because("frames are built from the domain, not the other way round");
}
