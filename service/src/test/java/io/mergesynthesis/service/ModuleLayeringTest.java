package io.mergesynthesis.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Which module's code may use which, beyond what the POMs already forbid (docs/adr/0066). The LLM client's main
 * code and the stand-in provider are compiled apart, but a test-scope dependency of the client on the stand-in
 * would let a main class slip in an import that only breaks at packaging; and the stand-in must keep its own
 * reading of the wire, never the client's.
 */
@AnalyzeClasses(packages = {"io.mergesynthesis.llm", "io.mergesynthesis.standin"},
        importOptions = ImportOption.DoNotIncludeTests.class)
public class ModuleLayeringTest {

    static final String LLM_CLIENT = "io.mergesynthesis.llm..";
    static final String STAND_IN = "io.mergesynthesis.standin..";

    static final ArchRule THE_CLIENT_NEVER_USES_THE_STAND_IN = noClasses()
            .that().resideInAPackage(LLM_CLIENT)
            .should().dependOnClassesThat().resideInAPackage(STAND_IN)
            .because("the client talks to real providers; the stand-in is for tests and ships only for its command");

    static final ArchRule THE_STAND_IN_NEVER_USES_THE_CLIENT = noClasses()
            .that().resideInAPackage(STAND_IN)
            .should().dependOnClassesThat().resideInAPackage(LLM_CLIENT)
            .because("the stand-in writes the wire shapes itself, so the client is tested against a second reading");

    @ArchTest
    void theClientNeverUsesTheStandIn(JavaClasses classes) {
        THE_CLIENT_NEVER_USES_THE_STAND_IN.check(classes);
    }

    @ArchTest
    void theStandInNeverUsesTheClient(JavaClasses classes) {
        THE_STAND_IN_NEVER_USES_THE_CLIENT.check(classes);
    }
}
