package io.mergesynthesis.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Which package of the service may use which, checked on the compiled classes (docs/adr/0036). The two front
 * ends, the JSON API ({@code resources}) and the web pages ({@code web}), call the use cases and render views;
 * only the use cases reach {@code db}, whose SQL is the only SQL, and {@code db} answers in {@code core}'s types.
 *
 * <p>Each rule is checked by an {@code @ArchTest} method rather than an annotated field: Maven Surefire 3.5.3
 * runs no field-declared rule.
 */
@AnalyzeClasses(packages = "io.mergesynthesis.service", importOptions = ImportOption.DoNotIncludeTests.class)
public class LayeringTest {

    static final String WEB = "io.mergesynthesis.service.web..";
    static final String API_RESOURCES = "io.mergesynthesis.service.resources..";
    static final String VIEWS = "io.mergesynthesis.service.api..";
    static final String HTTP = "io.mergesynthesis.service.http..";
    static final String DB = "io.mergesynthesis.service.db..";
    static final String DRILLS = "io.mergesynthesis.service.worker.drill..";
    static final String WORKER_WIRING = "io.mergesynthesis.service.worker.config..";
    static final String[] USE_CASES = {"io.mergesynthesis.service.inbox..", "io.mergesynthesis.service.ingest..",
            "io.mergesynthesis.service.requeue..", "io.mergesynthesis.service.export..",
            "io.mergesynthesis.service.settings..", "io.mergesynthesis.service.usage..",
            "io.mergesynthesis.service.operator..", "io.mergesynthesis.service.session..",
            "io.mergesynthesis.service.counts..", "io.mergesynthesis.service.signin.."};

    static final ArchRule FRONT_ENDS_NEVER_REACH_THE_DATABASE = noClasses()
            .that().resideInAnyPackage(WEB, API_RESOURCES)
            .should().dependOnClassesThat().resideInAPackage(DB)
            .because("the pages and the API go through the same use cases, so one rule is written once");

    static final ArchRule THE_WEB_DOES_NOT_BORROW_FROM_THE_API = noClasses()
            .that().resideInAPackage(WEB)
            .should().dependOnClassesThat().resideInAPackage(API_RESOURCES)
            .because("what both front ends need belongs to a use case");

    static final ArchRule VIEWS_NEVER_REACH_THE_DATABASE = noClasses()
            .that().resideInAPackage(VIEWS)
            .should().dependOnClassesThat().resideInAPackage(DB)
            .because("a view is made from core types, whichever statement read them");

    static final ArchRule USE_CASES_KNOW_NO_FRONT_END = noClasses()
            .that().resideInAnyPackage(USE_CASES)
            .should().dependOnClassesThat().resideInAnyPackage(WEB, API_RESOURCES, VIEWS, HTTP)
            .because("a use case answers in core types that either front end renders its own way");

    static final ArchRule THE_DATABASE_LAYER_KNOWS_ONLY_CORE = noClasses()
            .that().resideInAPackage(DB)
            .should().dependOnClassesThat().resideInAnyPackage(
                    concat(USE_CASES, WEB, API_RESOURCES, VIEWS, HTTP))
            .because("db/ holds the SQL and answers in core types; it calls nothing above it");

    static final ArchRule ONLY_THE_WIRING_KNOWS_THE_DRILLS = noClasses()
            .that().resideOutsideOfPackages(DRILLS, WORKER_WIRING)
            .should().dependOnClassesThat().resideInAPackage(DRILLS)
            .because("the drill wrappers go around the synthesizer only when a drill setting asks for them, "
                    + "and only the wiring reads those settings");

    @ArchTest
    void frontEndsNeverReachTheDatabase(JavaClasses service) {
        FRONT_ENDS_NEVER_REACH_THE_DATABASE.check(service);
    }

    @ArchTest
    void theWebDoesNotBorrowFromTheApi(JavaClasses service) {
        THE_WEB_DOES_NOT_BORROW_FROM_THE_API.check(service);
    }

    @ArchTest
    void viewsNeverReachTheDatabase(JavaClasses service) {
        VIEWS_NEVER_REACH_THE_DATABASE.check(service);
    }

    @ArchTest
    void useCasesKnowNoFrontEnd(JavaClasses service) {
        USE_CASES_KNOW_NO_FRONT_END.check(service);
    }

    @ArchTest
    void theDatabaseLayerKnowsOnlyCore(JavaClasses service) {
        THE_DATABASE_LAYER_KNOWS_ONLY_CORE.check(service);
    }

    @ArchTest
    void onlyTheWiringKnowsTheDrills(JavaClasses service) {
        ONLY_THE_WIRING_KNOWS_THE_DRILLS.check(service);
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
