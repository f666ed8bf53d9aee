package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.Behaviour.Scripted;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.SuggestedMerge;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For each golden conflict shape, a model answer made of the stub's five fields goes through the synthesizer:
 * the merge must have the stub's field names and JSON types throughout, and satisfy the published schema.
 * The one expected difference is {@code confidence}, null for the stub and a number from a model.
 */
class GoldenShapesTest {

    private static final ObjectMapper MERGE_JSON = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();
    private static final List<String> MODEL_FIELDS =
            List.of("resolved_effect", "merged_rule", "loser_actions", "rationale");

    private static StandInProvider standIn;
    private static LlmSynthesizer synthesizer;
    private static JsonSchema schema;

    @BeforeAll
    static void start() throws Exception {
        standIn = StandInProvider.start(new Behaviour());
        synthesizer = new LlmSynthesizer(
                Fixtures.settings(standIn.anthropicBaseUrl(), standIn.openAiBaseUrl(), AnswerMode.TOOL),
                new TestClock(), Ticker.SYSTEM, new CollectorRegistry());
        try (InputStream in = SuggestedMerge.class.getResourceAsStream(SuggestedMerge.SCHEMA_RESOURCE)) {
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                    .getSchema(in, SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build());
        }
    }

    @AfterAll
    static void stop() {
        standIn.close();
    }

    static Stream<Arguments> shapesAndProviders() throws Exception {
        List<Arguments> cases = new ArrayList<>();
        for (Path shape : shapes()) {
            cases.add(Arguments.of(shape.getFileName().toString(), "anthropic"));
            cases.add(Arguments.of(shape.getFileName().toString(), "openai"));
        }
        return cases.stream();
    }

    private static List<Path> shapes() throws Exception {
        try (Stream<Path> dirs = Files.list(Fixtures.goldenDir())) {
            return dirs.filter(Files::isDirectory).sorted().toList();
        }
    }

    @Test
    void theFiveShapesAreThere() throws Exception {
        assertThat(shapes()).hasSize(5);
    }

    @ParameterizedTest(name = "{0} via {1}")
    @MethodSource("shapesAndProviders")
    void aScriptedAnswerBecomesAMergeShapedLikeTheStubs(String shape, String provider) throws Exception {
        Path dir = Fixtures.goldenDir().resolve(shape);
        ConflictSnapshot conflict = Fixtures.readConflict(dir.resolve("input.json"));
        JsonNode expected = Fixtures.JSON.readTree(dir.resolve("expected.json").toFile());
        ObjectNode answer = Fixtures.JSON.createObjectNode();
        MODEL_FIELDS.forEach(field -> answer.set(field, expected.get(field)));
        answer.put("confidence", 0.85);
        standIn.behaviour().script(Scripted.answer(answer.toString()));

        SuggestedMerge merge = synthesizer.synthesize(conflict, Fixtures.model(provider, "test-model"));
        JsonNode actual = MERGE_JSON.valueToTree(merge);

        assertSameShape("$", expected, actual);
        assertThat(schema.validate(actual)).extracting(ValidationMessage::getMessage).isEmpty();
        for (String field : List.of("conflict_id", "winner", "losers", "resolved_effect", "merged_rule", "loser_actions",
                "rationale", "schema_version")) {
            assertThat(actual.get(field)).as(field).isEqualTo(expected.get(field));
        }
        assertThat(actual.path("produced_by").path("synthesizer").asText()).isEqualTo("llm");
    }

    @ParameterizedTest(name = "{0} via {1}")
    @MethodSource("shapesAndProviders")
    void theStandInsOwnAnswerIsValidForEveryShape(String shape, String provider) throws Exception {
        ConflictSnapshot conflict = Fixtures.readConflict(Fixtures.goldenDir().resolve(shape).resolve("input.json"));

        JsonNode actual = MERGE_JSON.valueToTree(synthesizer.synthesize(conflict, Fixtures.model(provider, "test-model")));

        assertThat(schema.validate(actual)).extracting(ValidationMessage::getMessage).isEmpty();
        assertThat(actual.path("loser_actions")).hasSize(conflict.losers().size());
    }

    /** Same field names and JSON types at every level; arrays element by element. */
    private static void assertSameShape(String path, JsonNode expected, JsonNode actual) {
        if (path.equals("$.confidence") && expected.isNull()) {
            assertThat(actual.getNodeType()).as(path).isEqualTo(JsonNodeType.NUMBER);
            return;
        }
        assertThat(actual.getNodeType()).as(path).isEqualTo(expected.getNodeType());
        if (expected.isObject()) {
            List<String> expectedNames = names(expected);
            assertThat(names(actual)).as(path).containsExactlyElementsOf(expectedNames);
            expectedNames.forEach(name -> assertSameShape(path + "." + name, expected.get(name), actual.get(name)));
        } else if (expected.isArray()) {
            assertThat(actual.size()).as(path).isEqualTo(expected.size());
            for (int i = 0; i < expected.size(); i++) {
                assertSameShape(path + "[" + i + "]", expected.get(i), actual.get(i));
            }
        }
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
