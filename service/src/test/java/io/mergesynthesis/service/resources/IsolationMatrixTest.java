package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every endpoint, every caller (each role of org A, platform, no token), against org A's own id, org B's
 * id, an id that exists nowhere and a malformed one: the expected status, and not a byte of org B in any
 * answer given to org A. Org B's data is marked so that a leak is easy to find, and a platform read of org
 * B shows that the search would find it.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class IsolationMatrixTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static final String SECRET = "ORG-B-SECRET";
    static final UUID ORG_A = UUID.randomUUID();
    static final UUID ORG_B = UUID.randomUUID();
    static final AtomicInteger KEYS = new AtomicInteger();

    static UUID conflictA;
    static UUID conflictB;
    static Map<String, String> tokens;
    static List<String> orgBMarks;

    enum Id { OWN, OTHER, MISSING, MALFORMED }

    enum Caller { ORG_ADMIN, INGEST, SIEM, PLATFORM, NONE }

    @BeforeAll
    static void twoOrgs() {
        String ingestA = APP.token(Role.INGEST, ORG_A);
        String ingestB = APP.token(Role.INGEST, ORG_B);
        String adminB = APP.token(Role.ORG_ADMIN, ORG_B);
        conflictA = Seed.conflict(APP, ingestA, ORG_A, "org-a-key", "org-a.tool");
        conflictB = Seed.conflict(APP, ingestB, ORG_B, SECRET + "-key", SECRET + ".tool");
        assertThat(APP.post(adminB, "/v1/conflicts/" + conflictB + "/acknowledge", "").statusCode()).isEqualTo(200);
        assertThat(APP.post(adminB, "/v1/conflicts/" + conflictB + "/resolve",
                "{\"resolution\": \"manual\", \"note\": \"" + SECRET + " note\"}").statusCode()).isEqualTo(200);
        tokens = Map.of(
                "ORG_ADMIN", APP.token(Role.ORG_ADMIN, ORG_A),
                "INGEST", ingestA,
                "SIEM", APP.token(Role.SIEM, ORG_A),
                "PLATFORM", APP.token(Role.PLATFORM, null));
        orgBMarks = List.of(SECRET, ORG_B.toString(), conflictB.toString());
    }

    private static String token(Caller caller) {
        return caller == Caller.NONE ? null : tokens.get(caller.name());
    }

    private static String id(Id kind) {
        return switch (kind) {
            case OWN -> conflictA.toString();
            case OTHER -> conflictB.toString();
            case MISSING -> UUID.randomUUID().toString();
            case MALFORMED -> "not-a-uuid";
        };
    }

    private static String org(Id kind) {
        return switch (kind) {
            case OWN -> ORG_A.toString();
            case OTHER -> ORG_B.toString();
            case MISSING -> UUID.randomUUID().toString();
            case MALFORMED -> "12345";
        };
    }

    private record Case(String name, Caller caller, java.util.function.Supplier<HttpResponse<String>> call,
                        int expected, boolean mayShowOrgB) {
    }

    @TestFactory
    List<DynamicTest> everyEndpointEveryCallerEveryId() {
        List<Case> cases = new ArrayList<>();
        for (Caller caller : Caller.values()) {
            String t = token(caller);
            boolean admin = caller == Caller.ORG_ADMIN;
            int denied = caller == Caller.NONE ? 401 : 403;

            cases.add(new Case("GET /v1/conflicts", caller, () -> APP.get(t, "/v1/conflicts"),
                    admin ? 200 : denied, false));
            cases.add(new Case("GET /v1/openapi.yaml", caller, () -> APP.get(t, "/v1/openapi.yaml"), 200, false));
            // The batch lane's batches are the platform's alone, every org's.
            boolean platform = caller == Caller.PLATFORM;
            cases.add(new Case("GET /v1/batches", caller, () -> APP.get(t, "/v1/batches"),
                    platform ? 200 : denied, platform));
            cases.add(new Case("POST /v1/batches/{missing}/cancel", caller,
                    () -> APP.post(t, "/v1/batches/" + UUID.randomUUID() + "/cancel", ""),
                    platform ? 404 : denied, false));
            cases.add(new Case("POST /v1/batches/{malformed}/cancel", caller,
                    () -> APP.post(t, "/v1/batches/not-a-uuid/cancel", ""), platform ? 400 : denied, false));

            for (Id kind : Id.values()) {
                int byId = switch (kind) {
                    case OWN -> 200;
                    case OTHER, MISSING -> 404;
                    case MALFORMED -> 400;
                };
                String path = "/v1/conflicts/" + id(kind);
                cases.add(new Case("GET " + path + " " + kind, caller, () -> APP.get(t, path),
                        admin ? byId : denied, false));
                cases.add(new Case("POST acknowledge " + kind, caller,
                        () -> APP.post(t, path + "/acknowledge", ""), admin ? byId : denied, false));
                cases.add(new Case("POST resolve " + kind, caller,
                        () -> APP.post(t, path + "/resolve", "{\"resolution\": \"rejected_suggestion\"}"),
                        admin ? byId : denied, false));

                String orgId = org(kind);
                int ingestStatus = switch (caller) {
                    case INGEST -> kind == Id.MALFORMED ? 422 : kind == Id.OWN ? 201 : 403;
                    case PLATFORM -> kind == Id.MALFORMED ? 422 : 201;
                    default -> denied;
                };
                String body = Seed.report(ORG_A, "k", "t").replace(ORG_A.toString(), orgId)
                        .replace("\"k\"", "\"matrix-" + KEYS.incrementAndGet() + "\"");
                cases.add(new Case("POST /v1/conflicts org " + kind, caller,
                        () -> APP.post(t, "/v1/conflicts", body), ingestStatus,
                        caller == Caller.PLATFORM && kind == Id.OTHER));

                for (String format : List.of("ndjson", "cef")) {
                    int events = switch (caller) {
                        case SIEM -> kind == Id.OWN ? 200 : kind == Id.MALFORMED ? 400 : 403;
                        case PLATFORM -> kind == Id.MALFORMED ? 400 : 200;
                        default -> denied;
                    };
                    cases.add(new Case("GET /v1/events " + format + " org " + kind, caller,
                            () -> APP.get(t, "/v1/events?format=" + format + "&org_id=" + orgId), events,
                            caller == Caller.PLATFORM && kind == Id.OTHER));
                }
            }
            for (String format : List.of("ndjson", "cef")) {
                cases.add(new Case("GET /v1/events " + format + " (no org_id)", caller,
                        () -> APP.get(t, "/v1/events?format=" + format),
                        caller == Caller.SIEM || caller == Caller.PLATFORM ? 200 : denied,
                        caller == Caller.PLATFORM));
            }
        }

        List<DynamicTest> tests = new ArrayList<>();
        String orgBBefore = Seed.inboxState(APP.database().jdbi(), conflictB);
        for (Case c : cases) {
            tests.add(dynamicTest(c.caller + " " + c.name + " -> " + c.expected, () -> {
                HttpResponse<String> response = c.call.get();
                assertThat(response.statusCode()).as(response.body()).isEqualTo(c.expected);
                String everything = response.headers().map() + "\n" + response.body();
                if (c.mayShowOrgB) {
                    if (c.expected == 200 && c.name.startsWith("GET /v1/events")) {
                        // The platform sees org B: proof that the marks below would catch a leak.
                        assertThat(everything).contains(SECRET);
                    }
                } else {
                    for (String mark : orgBMarks) {
                        assertThat(everything).as("%s %s leaks org B", c.caller, c.name).doesNotContain(mark);
                    }
                }
            }));
        }
        tests.add(dynamicTest("another org's id answers exactly like a missing one", () -> {
            String admin = token(Caller.ORG_ADMIN);
            for (String suffix : List.of("", "/acknowledge", "/resolve")) {
                var other = suffix.isEmpty() ? APP.get(admin, "/v1/conflicts/" + conflictB)
                        : APP.post(admin, "/v1/conflicts/" + conflictB + suffix, "{\"resolution\": \"manual\"}");
                var missing = suffix.isEmpty() ? APP.get(admin, "/v1/conflicts/" + UUID.randomUUID())
                        : APP.post(admin, "/v1/conflicts/" + UUID.randomUUID() + suffix, "{\"resolution\": \"manual\"}");
                assertThat(other.statusCode()).isEqualTo(missing.statusCode()).isEqualTo(404);
                assertThat(other.body()).isEqualTo(missing.body());
            }
        }));
        tests.add(dynamicTest("org B's conflict is untouched by everything org A tried", () -> {
            Jdbi db = APP.database().jdbi();
            assertThat(Seed.inboxState(db, conflictB)).isEqualTo(orgBBefore);
            assertThat(Seed.eventCount(db, conflictB, "conflict_acknowledged")).isEqualTo(1);
            assertThat(Seed.eventCount(db, conflictB, "conflict_resolved")).isEqualTo(1);
        }));
        return tests;
    }
}
