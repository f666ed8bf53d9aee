package io.mergesynthesis.service.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.synthesis.SuggestedMerge;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Puts a stored suggested merge's fields back in the order of {@code suggested-merge.schema.json}, the order
 * every reader (API, web pages, golden files) sees. It lives beside the domain so that the database layer can
 * apply it once, as it reads a merge.
 */
public final class MergeFieldOrder {

    private MergeFieldOrder() {
    }

    /**
     * A stored merge as the API shows it: the same JSON with every object's fields in the order the schema lists
     * them. PostgreSQL keeps {@code jsonb} keys sorted by length, so {@code suggested_merge::text} starts with
     * {@code "winner"} and ends with {@code "schema_version"}; this puts {@code schema_version} first again, as
     * {@link #toJson} wrote it. Fields the schema does not name (there should be none) keep their place after
     * the named ones. Null in, null out.
     */
    public static String inSchemaOrder(String storedJson) {
        if (storedJson == null) {
            return null;
        }
        try {
            JsonNode stored = SchemaOrder.MAPPER.readTree(storedJson);
            return SchemaOrder.MAPPER.writeValueAsString(SchemaOrder.reorder(stored, SchemaOrder.SCHEMA));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored suggested merge is not JSON", e);
        }
    }

    /** The schema as a tree, read once, and the walk that orders a merge's fields after it. */
    private static final class SchemaOrder {
        static final ObjectMapper MAPPER = new ObjectMapper();
        static final JsonNode SCHEMA = read();

        static JsonNode reorder(JsonNode value, JsonNode schema) {
            JsonNode rule = resolve(schema);
            if (value.isArray() && rule.has("items")) {
                ArrayNode ordered = MAPPER.createArrayNode();
                value.forEach(item -> ordered.add(reorder(item, rule.get("items"))));
                return ordered;
            }
            if (!value.isObject() || !rule.has("properties")) {
                return value;
            }
            ObjectNode ordered = MAPPER.createObjectNode();
            rule.get("properties").fieldNames().forEachRemaining(name -> {
                if (value.has(name)) {
                    ordered.set(name, reorder(value.get(name), rule.get("properties").get(name)));
                }
            });
            value.fieldNames().forEachRemaining(name -> {
                if (!ordered.has(name)) {
                    ordered.set(name, value.get(name));
                }
            });
            return ordered;
        }

        /** Follows {@code $ref}s of the form {@code #/$defs/name}, the only kind the schema uses. */
        private static JsonNode resolve(JsonNode schema) {
            JsonNode current = schema;
            for (int depth = 0; current.has("$ref") && depth < 8; depth++) {
                current = SCHEMA.at(current.get("$ref").asText().substring(1));
            }
            return current;
        }

        private static JsonNode read() {
            try (InputStream in = SuggestedMerge.class.getResourceAsStream(SuggestedMerge.SCHEMA_RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("the suggested-merge schema is missing from the classpath at "
                            + SuggestedMerge.SCHEMA_RESOURCE);
                }
                return MAPPER.readTree(in);
            } catch (IOException e) {
                throw new UncheckedIOException("could not read the suggested-merge schema", e);
            }
        }
    }
}
