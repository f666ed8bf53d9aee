package io.mergesynthesis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.UUID;

/**
 * The conflict every seeded row copies (golden shape 1, org over member on a tool call) and the stub's merge
 * for it, in compact form: the precomputed merge the ceiling loop writes and the one "done" history rows hold.
 *
 * @param orgId the golden conflict's org, which its org rule names as owner: a row of another org names that
 *              org instead ({@link #rulesJson(UUID)}), as ingest requires of an org rule
 */
record Fixture(String action, String target, String rulesJson, String winnerPolicyId, String mergeJson,
               String orgId) {

    private static final ObjectMapper JSON = new ObjectMapper();

    static Fixture load() {
        JsonNode input = read("fixture/input.json");
        JsonNode merge = read("fixture/expected.json");
        try {
            return new Fixture(input.get("action").asText(), input.get("target").asText(),
                    JSON.writeValueAsString(input.get("rules")), input.get("winner_policy_id").asText(),
                    JSON.writeValueAsString(merge), input.get("org_id").asText());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The rules as a conflict of {@code org} holds them. */
    String rulesJson(UUID org) {
        return rulesJson.replace(orgId, org.toString());
    }

    private static JsonNode read(String resource) {
        try (InputStream in = Fixture.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource + " (the build copies it from "
                        + "testdata/merge_golden)");
            }
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
