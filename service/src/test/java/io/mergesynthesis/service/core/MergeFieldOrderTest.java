package io.mergesynthesis.service.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestApp;
import io.mergesynthesis.service.worker.attempt.SuggestedMergeJson;
import io.mergesynthesis.synthesis.SuggestedMerge;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A merge read back from PostgreSQL comes out in the schema's field order, as the golden files hold it, not in
 * jsonb's (keys sorted by length).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class MergeFieldOrderTest {

    static final TestApp APP = TestApp.apiOnly();
    static final DropwizardAppExtension<MergeSynthesisConfiguration> EXT = APP.extension();
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theApiShowsEveryGoldenMergeInTheSchemasOrderAfterAStopInJsonb() throws Exception {
        UUID org = UUID.randomUUID();
        String ingest = APP.token(Role.INGEST, org);
        String admin = APP.token(Role.ORG_ADMIN, org);
        List<Path> goldens = goldenFiles();
        assertThat(goldens).hasSizeGreaterThanOrEqualTo(5);
        for (Path golden : goldens) {
            String expected = Files.readString(golden, StandardCharsets.UTF_8);
            UUID id = Seed.conflict(APP, ingest, org, "order-" + golden.getParent().getFileName(), "jira.*");
            APP.database().jdbi().useHandle(h -> h.createUpdate(
                            "UPDATE policy_conflicts SET synthesis_state = 'done', suggested_merge = CAST(:m AS jsonb) "
                                    + "WHERE id = :id")
                    .bind("m", expected).bind("id", id).execute());
            String stored = APP.database().jdbi().withHandle(h -> h.createQuery(
                    "SELECT suggested_merge::text FROM policy_conflicts WHERE id = :id").bind("id", id)
                    .mapTo(String.class).one());

            HttpResponse<String> one = APP.get(admin, "/v1/conflicts/" + id);
            HttpResponse<String> page = APP.get(admin, "/v1/conflicts?limit=1");

            assertThat(one.statusCode()).isEqualTo(200);
            List<String> order = fieldPaths(JSON.readTree(expected));
            // The premise: jsonb does reorder, so a test that read the stored text back as is would fail here.
            assertThat(fieldPaths(JSON.readTree(stored))).as(golden.toString()).isNotEqualTo(order);
            JsonNode shown = JSON.readTree(one.body()).at("/synthesis/suggested_merge");
            assertThat(fieldPaths(shown)).as(golden.toString()).isEqualTo(order);
            assertThat(shown).isEqualTo(JSON.readTree(expected));
            JsonNode listed = JSON.readTree(page.body()).at("/conflicts/0/synthesis/suggested_merge");
            assertThat(fieldPaths(listed)).as(golden.toString()).isEqualTo(order);
        }
    }

    @Test
    void theGoldenFilesAndTheSchemaAgreeOnTheOrder() throws Exception {
        JsonNode schema;
        try (var in = SuggestedMerge.class.getResourceAsStream(SuggestedMerge.SCHEMA_RESOURCE)) {
            schema = JSON.readTree(in);
        }
        List<String> schemaOrder = new ArrayList<>();
        schema.get("properties").fieldNames().forEachRemaining(schemaOrder::add);
        for (Path golden : goldenFiles()) {
            List<String> top = new ArrayList<>();
            JSON.readTree(golden.toFile()).fieldNames().forEachRemaining(top::add);
            assertThat(top).as(golden.toString()).isEqualTo(schemaOrder);
            String text = Files.readString(golden, StandardCharsets.UTF_8);
            // Reordering what is already in order changes nothing: the files stay byte for byte as they are.
            assertThat(SuggestedMergeJson.inSchemaOrder(text)).isEqualTo(JSON.writeValueAsString(JSON.readTree(text)));
        }
    }

    @Test
    void nullStaysNull() {
        assertThat(SuggestedMergeJson.inSchemaOrder(null)).isNull();
    }

    /** Every field as a JSON path, in the order met: equal lists mean equal order at every depth. */
    private static List<String> fieldPaths(JsonNode node) {
        List<String> paths = new ArrayList<>();
        collect(node, "", paths);
        return paths;
    }

    private static void collect(JsonNode node, String at, List<String> paths) {
        if (node.isObject()) {
            for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                paths.add(at + "/" + name);
                collect(node.get(name), at + "/" + name, paths);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                collect(node.get(i), at + "/" + i, paths);
            }
        }
    }

    private static List<Path> goldenFiles() throws Exception {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("testdata/merge_golden"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("testdata/merge_golden above the working directory").isNotNull();
        try (var shapes = Files.list(dir.resolve("testdata/merge_golden"))) {
            return shapes.map(shape -> shape.resolve("expected.json")).filter(Files::exists).sorted().toList();
        }
    }
}
