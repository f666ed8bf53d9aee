package io.mergesynthesis.service;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/** The layering rules are not vacuous: each one refuses a class that breaks it. */
class LayeringRulesCatchTest {

    private static final JavaClasses SAMPLE = new ClassFileImporter()
            .importPackages("io.mergesynthesis.service.web")
            .that(DescribedPredicate.describe("the violation sample",
                    (JavaClass c) -> c.getSimpleName().equals("LayeringViolationSample")));

    private static final JavaClasses CLIENT_SAMPLE = new ClassFileImporter()
            .importPackages("io.mergesynthesis.llm")
            .that(DescribedPredicate.describe("the client sample that uses the stand-in",
                    (JavaClass c) -> c.getSimpleName().equals("StandInBorrowingSample")));

    @Test
    void aPageThatReadsTheDatabaseItselfIsRefused() {
        assertThatThrownBy(() -> LayeringTest.FRONT_ENDS_NEVER_REACH_THE_DATABASE.check(SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("UsageLedger");
    }

    @Test
    void aPageThatBorrowsFromTheApiIsRefused() {
        assertThatThrownBy(() -> LayeringTest.THE_WEB_DOES_NOT_BORROW_FROM_THE_API.check(SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("ConflictResource");
    }

    @Test
    void aClientClassThatUsesTheStandInIsRefused() {
        assertThatThrownBy(() -> ModuleLayeringTest.THE_CLIENT_NEVER_USES_THE_STAND_IN.check(CLIENT_SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("StandInProvider");
    }
}
