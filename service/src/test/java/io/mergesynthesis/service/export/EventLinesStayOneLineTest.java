package io.mergesynthesis.service.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.db.EventStream.StoredEvent;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * For any text a tenant can put in a dedup key, a target, a policy id or a note, each event is exactly one line in
 * both formats, for a reader that breaks lines on any of Unicode's line terminators, and every value reads back
 * as it was.
 */
class EventLinesStayOneLineTest {

    /** Every character some reader takes as the end of a line. */
    static final String LINE_TERMINATORS = "\n\r\u000B\u000C\u0085\u2028\u2029";
    /** What the formats give a meaning to, and text around it. */
    static final String ALPHABET = LINE_TERMINATORS + "|=\\ ,;\"'[]{}:\t\u0000\u007F\u009Fabcz09-_.Zürich✓";
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyEventIsOneLineWhoseValuesReadBackIntact() throws Exception {
        Random random = new Random(2028);
        for (int run = 0; run < 2_000; run++) {
            String dedupKey = text(random);
            String target = text(random);
            String note = text(random);
            String mergedTarget = text(random);
            List<String> policyIds = IntStream.range(0, 1 + random.nextInt(3)).mapToObj(i -> text(random)).toList();
            ObjectNode details = JSON.createObjectNode().put("resolution", "accepted_suggestion")
                    .put("resolution_note", note);
            details.putObject("merged_rule").put("effect", "deny").put("target", mergedTarget);
            ArrayNode losers = details.putArray("loser_actions");
            policyIds.forEach(id -> losers.addObject().put("policy_id", id).put("action", "narrow")
                    .put("detail", "d"));
            StoredEvent event = new StoredEvent(7, 900, UUID.randomUUID(), UUID.randomUUID(), "conflict_resolved",
                    Instant.now(), JSON.writeValueAsString(details), dedupKey, "tool_call", target,
                    policyIds.get(0));

            String cef = EventFormat.CEF.lines().line(event);
            String ndjson = EventFormat.NDJSON.lines().line(event);
            for (String line : List.of(cef, ndjson)) {
                assertThat(line.chars().filter(c -> LINE_TERMINATORS.indexOf(c) >= 0).count())
                        .as("line terminators in %s", line).isZero();
            }

            EventFormatTest.Cef parsed = EventFormatTest.Cef.parse(cef);
            assertThat(parsed.ext()).containsEntry("cs3", dedupKey).containsEntry("cs4", target)
                    .containsEntry("msg", note).containsEntry("mergeSynthesisMergedTarget", mergedTarget);
            JsonNode cefLosers = JSON.readTree(parsed.ext().get("mergeSynthesisLoserActions"));
            assertThat(cefLosers.findValuesAsText("policy_id")).isEqualTo(policyIds);
            assertThat(cefLosers.findValuesAsText("action")).containsOnly("narrow");

            JsonNode ecs = JSON.readTree(ndjson).get("merge_synthesis");
            assertThat(ecs.get("dedup_key").asText()).isEqualTo(dedupKey);
            assertThat(ecs.get("target").asText()).isEqualTo(target);
            assertThat(ecs.get("resolution_note").asText()).isEqualTo(note);
            assertThat(ecs.at("/merged_rule/target").asText()).isEqualTo(mergedTarget);
            assertThat(ecs.get("loser_actions").findValuesAsText("policy_id")).isEqualTo(policyIds);
        }
    }

    @Test
    void aForgedSecondRecordInADedupKeyStaysInsideTheValue() {
        String forged = "k\u2028CEF:0|evil|evil|1|x|y|10|act=forged\u0085{\"event\":{\"action\":\"forged\"}}";
        StoredEvent event = new StoredEvent(7, 900, UUID.randomUUID(), UUID.randomUUID(), "conflict_detected",
                Instant.now(), "{}", forged, "tool_call", "t", "p");
        for (EventFormat format : EventFormat.values()) {
            String line = format.lines().line(event);
            assertThat(line).doesNotContain("\u2028").doesNotContain("\u0085").contains("\\u2028");
        }
    }

    /** Up to 40 characters drawn mostly from the alphabet, now and then any character of the Basic Plane. */
    private static String text(Random random) {
        StringBuilder out = new StringBuilder();
        int length = random.nextInt(41);
        for (int i = 0; i < length; i++) {
            if (random.nextInt(10) == 0) {
                char c = (char) random.nextInt(0xD800);
                out.append(c);
            } else {
                out.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
        }
        return out.toString();
    }
}
