package io.mergesynthesis.service.worker.attempt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.PathType;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.mergesynthesis.service.core.MergeFieldOrder;
import io.mergesynthesis.synthesis.SuggestedMerge;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The one place that turns a {@link SuggestedMerge} into JSON and checks JSON against the seam's schema.
 *
 * <p>The canonical text is what gets stored and what the golden files hold, so its layout is pinned here
 * rather than left to whichever mapper happens to be at hand: fields in the order the record declares,
 * two-space indent, {@code \n} line endings, instants as ISO-8601 strings, and a trailing newline.
 *
 * <p>Build one instance and share it: the schema is loaded once, and every method is thread-safe.
 */
public final class SuggestedMergeJson {

    private final ObjectMapper mapper;
    private final ObjectWriter canonicalWriter;
    private final JsonSchema schema;

    public SuggestedMergeJson() {
        // A mapper of its own, so that modules and features registered on the application's mapper
        // can never change the stored form of a merge.
        this.mapper = JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .build();
        this.canonicalWriter = mapper.writer(canonicalPrinter());
        this.schema = loadSchema();
    }

    /** The canonical JSON text of a merge, ending with a newline. */
    public String toJson(SuggestedMerge merge) {
        return canonical(merge);
    }

    /** The merge as a JSON tree, in the same form {@link #toJson} writes. */
    public JsonNode toTree(SuggestedMerge merge) {
        return mapper.valueToTree(merge);
    }

    /**
     * A merge checked for the conflict it was written for: what is wrong with it ({@link #violations(JsonNode,
     * UUID)}), and when nothing is, its canonical text.
     */
    public record Checked(List<String> problems, String json) {

        public boolean passed() {
            return problems.isEmpty();
        }
    }

    /**
     * Checks {@code merge} and writes its canonical text from the same tree the schema saw: one pass from the
     * record to JSON rather than one for the check and another for the text. The text is the one
     * {@link #toJson} writes, as the tree holds the same fields, in the same order, with the same values.
     */
    public Checked check(SuggestedMerge merge, UUID expectedConflictId) {
        JsonNode tree = toTree(merge);
        List<String> problems = violations(tree, expectedConflictId);
        if (!problems.isEmpty()) {
            return new Checked(problems, null);
        }
        return new Checked(problems, canonical(tree));
    }

    /** {@code value} (the merge, or its tree) as the canonical text. */
    private String canonical(Object value) {
        try {
            return canonicalWriter.writeValueAsString(value) + "\n";
        } catch (JsonProcessingException e) {
            // Every field of the record is a plain value type, so this points at a broken mapper setup.
            throw new UncheckedIOException("could not serialise the suggested merge", e);
        }
    }

    /** A stored merge with its fields in the schema's order; see {@link MergeFieldOrder}. */
    public static String inSchemaOrder(String storedJson) {
        return MergeFieldOrder.inSchemaOrder(storedJson);
    }

    /**
     * What is wrong with {@code json} as a suggested merge, one readable message per problem, each starting
     * with the JSON path it is about (e.g. {@code $.confidence: must have a maximum value of 1}). Empty when
     * the JSON satisfies the schema.
     */
    public List<String> violations(JsonNode json) {
        return schema.validate(json).stream()
                .map(ValidationMessage::getMessage)
                .sorted() // the validator returns a set; sorting makes messages stable for logs and tests
                .toList();
    }

    /**
     * As {@link #violations(JsonNode)}, and also checks that the merge belongs to the conflict it was written
     * for: a synthesizer that answers for the wrong conflict produces valid JSON that must still be refused.
     */
    public List<String> violations(JsonNode json, UUID expectedConflictId) {
        List<String> problems = new ArrayList<>(violations(json));
        JsonNode conflictId = json.path("conflict_id");
        // A missing or non-string id is already reported by the schema.
        if (conflictId.isTextual() && !conflictId.asText().equals(expectedConflictId.toString())) {
            problems.add("$.conflict_id: is " + conflictId.asText()
                    + ", but the merge was written for conflict " + expectedConflictId);
        }
        return List.copyOf(problems);
    }

    private static DefaultPrettyPrinter canonicalPrinter() {
        DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
        Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER) // "key": value, not "key" : value
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator(""); // [] rather than [ ]
        return new DefaultPrettyPrinter(separators)
                .withObjectIndenter(indenter)
                .withArrayIndenter(indenter);
    }

    private static JsonSchema loadSchema() {
        JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
        SchemaValidatorsConfig config = SchemaValidatorsConfig.builder()
                // 2020-12 treats "format" as a note by default; a malformed generated_at must be refused.
                .formatAssertionsEnabled(true)
                // Resolve everything now, so concurrent first validations do not race to do it.
                .preloadJsonSchema(true)
                // "$.loser_actions[0].action" reads better in a log line than a JSON pointer does.
                .pathType(PathType.JSON_PATH)
                .build();
        try (InputStream in = SuggestedMerge.class.getResourceAsStream(SuggestedMerge.SCHEMA_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the suggested-merge schema is missing from the classpath at "
                        + SuggestedMerge.SCHEMA_RESOURCE);
            }
            return factory.getSchema(in, config);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the suggested-merge schema", e);
        }
    }
}
