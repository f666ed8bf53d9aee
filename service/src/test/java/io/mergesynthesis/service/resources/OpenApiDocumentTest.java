package io.mergesynthesis.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.synthesis.TargetPattern;
import jakarta.ws.rs.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The hand-kept OpenAPI document lists exactly the JSON API routes the running application serves. */
@ExtendWith(DropwizardExtensionsSupport.class)
class OpenApiDocumentTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();

    @Test
    void documentedOperationsAndServedRoutesAreTheSameSet() throws Exception {
        var response = APP.get(null, "/v1/openapi.yaml");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/yaml"));
        JsonNode document = new ObjectMapper(new YAMLFactory()).readTree(response.body());
        assertThat(document.get("openapi").asText()).startsWith("3.");

        Set<String> documented = new TreeSet<>();
        for (Iterator<String> paths = document.get("paths").fieldNames(); paths.hasNext(); ) {
            String path = paths.next();
            document.get("paths").get(path).fieldNames().forEachRemaining(method -> {
                if (Set.of("get", "put", "post", "delete", "patch", "head", "options").contains(method)) {
                    documented.add(method.toUpperCase(Locale.ROOT) + " " + path);
                }
            });
        }

        Set<String> served = new TreeSet<>();
        for (Object component : EXT.getEnvironment().jersey().getResourceConfig().getInstances()) {
            if (component.getClass().isAnnotationPresent(Path.class)) {
                collect(Resource.from(component.getClass()), "", served);
            }
        }
        for (Class<?> component : EXT.getEnvironment().jersey().getResourceConfig().getClasses()) {
            if (component.isAnnotationPresent(Path.class)) {
                collect(Resource.from(component), "", served);
            }
        }

        // The document describes the JSON API; the web inbox's HTML pages beside it are not part of it.
        served.removeIf(route -> !route.substring(route.indexOf(' ') + 1).startsWith("/v1/"));
        assertThat(served).as("served routes").contains("POST /v1/conflicts/{id}/resolve", "GET /v1/events");
        assertThat(documented).as("documented but not served").isSubsetOf(served);
        assertThat(served).as("served but not documented").isSubsetOf(documented);
    }

    @Test
    void theDocumentedTargetPatternAcceptsWhatIngestAccepts() throws Exception {
        JsonNode document = new ObjectMapper(new YAMLFactory()).readTree(APP.get(null, "/v1/openapi.yaml").body());
        Pattern documented = Pattern.compile(document.at("/components/schemas/Target/pattern").asText());

        for (String target : List.of("*", "jira", "jira.*", "jira.create_issue", "kb.finance.*", "arn:aws:s3/b@v1.*",
                "ORG-B.tool_2", "", ".*", "*.*", "**", "jira*", "jira.*.*", "jira..x", ".jira", "jira.", "a b",
                "a\"b", "a'b", "a{b}", "a<b>", "a;b", "k\u00e4", "jira.*x")) {
            assertThat(documented.matcher(target).matches()).as(target)
                    .isEqualTo(TargetPattern.problem(target) == null);
        }
        assertThat(document.at("/components/schemas/Target/maxLength").asInt()).isEqualTo(300);
    }

    private static void collect(Resource resource, String parent, Set<String> into) {
        String path = join(parent, resource.getPath());
        for (ResourceMethod method : resource.getResourceMethods()) {
            into.add(method.getHttpMethod() + " " + path);
        }
        for (Resource child : resource.getChildResources()) {
            collect(child, path, into);
        }
    }

    private static String join(String parent, String path) {
        String joined = (parent + "/" + (path == null ? "" : path)).replaceAll("/+", "/");
        return joined.length() > 1 && joined.endsWith("/") ? joined.substring(0, joined.length() - 1) : joined;
    }
}
