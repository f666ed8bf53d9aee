package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeFinding;
import io.mergesynthesis.synthesis.PolicyRule;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the model is told. The words live in versioned resources beside this class, the system prompt
 * ({@code merge-synthesis-prompt.md}) and the schema of the answer ({@code merge-answer.schema.json}), so that a
 * change to them is a reviewable diff rather than an edit to string literals. The schema's title and
 * description double as the tool's name and description. The prompt closes with one of two sentences on the
 * answer's form: {@code merge-answer-structured.md} when the request carries the schema itself (a tool or a
 * response format), {@code merge-answer-inline.md}, with the schema written out compactly, when it does not. The
 * schema is sent once per request either way (ADR 0039). {@code merge-repair-message.md} holds what a model is
 * told when the merge check refused its answer.
 */
public final class Prompt {

    static final String PROMPT_RESOURCE = "merge-synthesis-prompt.md";
    static final String SCHEMA_RESOURCE = "merge-answer.schema.json";
    static final String REPAIR_RESOURCE = "merge-repair-message.md";
    static final String STRUCTURED_RESOURCE = "merge-answer-structured.md";
    static final String INLINE_RESOURCE = "merge-answer-inline.md";
    private static final String SCHEMA_PLACEHOLDER = "{{answer_schema}}";
    private static final String FORMAT_PLACEHOLDER = "{{answer_format}}";
    private static final String FINDINGS_PLACEHOLDER = "{{findings}}";

    /** Where the answer's schema travels in a request: once, in one of the two places. */
    public enum SchemaPlace {
        /** The request carries it as a tool's input schema or a response format; the prompt only points to it. */
        REQUEST,
        /** Nothing in the request carries it: the prompt writes it out. */
        PROMPT
    }

    private final String instructions;
    private final String systemForRequestSchema;
    private final String systemForPromptSchema;
    private final ObjectNode answerSchema;
    private final String toolName;
    private final String toolDescription;
    private final String repair;

    private Prompt(String template, String structured, String inline, ObjectNode answerSchema, String toolName,
                   String toolDescription, String repair) {
        this.instructions = template.replace(FORMAT_PLACEHOLDER, "").stripTrailing();
        this.systemForRequestSchema = template.replace(FORMAT_PLACEHOLDER, structured.strip());
        // Compact: the model reads JSON as well without the indentation, and every space is an input token.
        this.systemForPromptSchema = template.replace(FORMAT_PLACEHOLDER,
                inline.strip().replace(SCHEMA_PLACEHOLDER, answerSchema.toString()));
        this.answerSchema = answerSchema;
        this.toolName = toolName;
        this.toolDescription = toolDescription;
        this.repair = repair;
    }

    /** The prompt as shipped in this module's resources. */
    public static Prompt shipped() {
        try {
            ObjectNode schema = (ObjectNode) WireJson.MAPPER.readTree(resource(SCHEMA_RESOURCE));
            String name = schema.remove("title").asText();
            String description = schema.remove("description").asText();
            return new Prompt(resource(PROMPT_RESOURCE), resource(STRUCTURED_RESOURCE), resource(INLINE_RESOURCE),
                    schema, name, description, resource(REPAIR_RESOURCE).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("the prompt resources of the LLM synthesizer cannot be read", e);
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = Prompt.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("resource " + name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The system prompt; the same text for every conflict, so that it stays a cacheable prefix.
     *
     * @param schema where the request carries the answer's schema
     */
    public String system(SchemaPlace schema) {
        return schema == SchemaPlace.REQUEST ? systemForRequestSchema : systemForPromptSchema;
    }

    /** The system prompt's instructions without its closing sentence on the answer's form. */
    public String instructions() {
        return instructions;
    }

    /** The JSON Schema of the five answer fields; a fresh copy, since request builders may embed it. */
    public ObjectNode answerSchema() {
        return answerSchema.deepCopy();
    }

    public String toolName() {
        return toolName;
    }

    public String toolDescription() {
        return toolDescription;
    }

    /** The conflict as the model reads it: only what the merge depends on, nothing about the org. */
    public String userMessage(ConflictSnapshot conflict) {
        ObjectNode root = WireJson.MAPPER.createObjectNode();
        root.put("conflict_id", conflict.conflictId().toString());
        root.put("action", conflict.action().wireName());
        root.put("target", conflict.target());
        ArrayNode rules = root.putArray("rules");
        for (PolicyRule rule : conflict.rules()) {
            ObjectNode r = rules.addObject();
            r.put("policy_id", rule.policyId());
            r.put("scope", rule.scope().wireName());
            r.put("scope_id", rule.scopeId());
            r.put("effect", rule.effect().wireName());
            r.put("target", rule.target());
        }
        root.put("winner_policy_id", conflict.winnerPolicyId());
        return root.toString();
    }

    /**
     * What the model is told after its answer (sent back to it as its own turn) was refused by the merge check:
     * the check's findings, one a line as {@code code: message}, and a request to answer again.
     */
    public String repairMessage(List<MergeFinding> findings) {
        String lines = findings.stream().map(finding -> "- " + finding).collect(Collectors.joining("\n"));
        return repair.replace(FINDINGS_PLACEHOLDER, lines);
    }
}
