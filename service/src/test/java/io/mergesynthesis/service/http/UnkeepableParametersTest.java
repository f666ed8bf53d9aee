package io.mergesynthesis.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.service.testing.WebPages;
import jakarta.ws.rs.Path;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every GET page and API endpoint the running application serves answers a NUL or an encoded lone surrogate in a
 * query parameter or a path segment with 400 naming what was wrong, never 500 and never a page built on it. The
 * endpoints are read from the application's own resources, so a new one is walked without being listed here.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class UnkeepableParametersTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    static final UUID ORG = UUID.randomUUID();
    static final List<String> BAD_VALUES = List.of("%00", "a%00b", "%ED%A0%80", "x%ED%B0%80");

    static String platform;
    static String admin;
    static WebPages platformPages;
    static WebPages adminPages;

    @BeforeAll
    static void signIn() {
        platform = APP.token(Role.PLATFORM, null);
        admin = APP.token(Role.ORG_ADMIN, ORG);
        Seed.conflict(APP, APP.token(Role.INGEST, ORG), ORG, "parameters", "jira.create_issue");
        platformPages = WebPages.signIn(APP, platform);
        adminPages = WebPages.signIn(APP, admin);
    }

    /** The path of every GET method of the application's resources, a UUID standing in for each path parameter. */
    static Set<String> everyGetPath() {
        var config = EXT.getEnvironment().jersey().getResourceConfig();
        Set<String> paths = new TreeSet<>();
        Stream.concat(config.getInstances().stream().map(Object::getClass), config.getClasses().stream())
                .filter(type -> type.isAnnotationPresent(Path.class))
                .forEach(type -> collect(Resource.from(type), "", paths));
        return paths;
    }

    private static void collect(Resource resource, String parent, Set<String> paths) {
        String path = join(parent, resource.getPath());
        for (ResourceMethod method : resource.getResourceMethods()) {
            if (method.getHttpMethod().equals("GET")) {
                paths.add(path.replaceAll("\\{[^}]+}", UUID.randomUUID().toString()));
            }
        }
        for (Resource child : resource.getChildResources()) {
            collect(child, path, paths);
        }
    }

    private static String join(String parent, String path) {
        String joined = (parent + "/" + (path == null ? "" : path)).replaceAll("/+", "/");
        return joined.length() > 1 && joined.endsWith("/") ? joined.substring(0, joined.length() - 1) : joined;
    }

    @Test
    void theWalkFindsThePagesAndTheApi() {
        assertThat(everyGetPath()).contains("/operator", "/v1/conflicts", "/v1/events", "/sign-in")
                .hasSizeGreaterThan(15);
    }

    @Test
    void aNulOrALoneSurrogateInAQueryParameterIs400NamingIt() {
        List<String> wrong = new ArrayList<>();
        for (String path : everyGetPath()) {
            for (String bad : BAD_VALUES) {
                String query = path + "?q=" + bad;
                for (HttpResponse<String> answer : List.of(APP.get(platform, query), APP.get(admin, query),
                        platformPages.answer(query), adminPages.answer(query))) {
                    if (answer.statusCode() != 400 || !answer.body().contains("query parameter q")) {
                        wrong.add(query + " answered " + answer.statusCode() + ": " + abbreviated(answer.body()));
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void aNulOrALoneSurrogateInAPathSegmentIs400SayingSo() {
        List<String> wrong = new ArrayList<>();
        for (String path : List.of("/v1/conflicts/%s", "/v1/orgs/%s/synthesis", "/operator/orgs/%s",
                "/conflicts/%s")) {
            for (String bad : BAD_VALUES) {
                String query = path.formatted(bad);
                for (HttpResponse<String> answer : List.of(APP.get(platform, query), APP.get(admin, query),
                        platformPages.answer(query), adminPages.answer(query))) {
                    // Jetty refuses these itself while parsing the request line, in the API's error body.
                    if (answer.statusCode() != 400 || !answer.body().contains("path")) {
                        wrong.add(query + " answered " + answer.statusCode() + ": " + abbreviated(answer.body()));
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void ordinaryTextInAParameterPassesTheCheck() {
        HttpResponse<String> answer = APP.get(admin, "/v1/conflicts?q=%E3%83%9D%E3%83%AA%F0%9F%98%80");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    }

    @Test
    void aBadFormFieldIs400NamingIt() {
        for (String bad : BAD_VALUES) {
            HttpResponse<String> answer = APP.send(HttpRequest.newBuilder(APP.uri("/sign-in"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("token=" + bad + "&sign_in=x")).build());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
            assertThat(answer.body()).contains("form field token");
        }
    }

    private static String abbreviated(String body) {
        return body.length() > 200 ? body.substring(0, 200) + "..." : body;
    }
}
