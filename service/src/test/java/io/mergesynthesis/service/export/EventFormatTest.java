package io.mergesynthesis.service.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mergesynthesis.service.auth.Caller;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.core.EventPosition;
import io.mergesynthesis.service.core.Resolution;
import io.mergesynthesis.service.db.EventStream.StoredEvent;
import io.mergesynthesis.service.inbox.ConflictInbox;
import io.mergesynthesis.service.testing.Seed;
import io.mergesynthesis.service.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Both formats, fed values chosen to break them: separators, escapes, line breaks and non-ASCII text. */
class EventFormatTest {

    static final String DEDUP_KEY = "a|b=c\\d\ne\rf Zürich ✓ cs1=forged";
    static final String TARGET = "x|y=z\\ \n act=forged | ✓";
    static final String NOTE = "note with = and | and \\ and\nline two\r\nand Zürich ✓ msg=forged";

    static final UUID ORG = UUID.randomUUID();
    static UUID conflict;
    static EventExport export;

    @BeforeAll
    static void hostileConflictDetectedAcknowledgedAndResolved() {
        TestDatabase database = TestDatabase.fresh();
        Jdbi superuser = database.jdbi();
        conflict = UUID.randomUUID();
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO policy_conflicts (id, org_id, dedup_key, action, target, rules, winner_policy_id,
                                                      detected_at)
                        VALUES (:id, :org, :key, 'data_export', :target, '[]', 'p1', now())""")
                .bind("id", conflict).bind("org", ORG).bind("key", DEDUP_KEY).bind("target", TARGET).execute());
        superuser.useHandle(h -> h.createUpdate("""
                        INSERT INTO conflict_events (org_id, conflict_id, event_type, details)
                        VALUES (:org, :id, 'conflict_detected', '{"rule_count": 2}')""")
                .bind("org", ORG).bind("id", conflict).execute());
        ConflictInbox inbox = new ConflictInbox(database.transactions(), new ObjectMapper());
        Caller admin = new Caller(UUID.randomUUID(), Role.ORG_ADMIN, ORG);
        inbox.acknowledge(admin, conflict);
        inbox.resolve(admin, conflict, Resolution.MANUAL, NOTE);
        export = new EventExport(database.transactions());
    }

    private static String exported(EventFormat format) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        export.write(export.plan(ORG, EventPosition.START, 100), format, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void everyNdjsonLineIsJsonWithTheEcsFieldsAndTheHostileValuesSurviveIntact() throws Exception {
        String[] lines = exported(EventFormat.NDJSON).split("\n", -1);
        assertThat(lines).hasSize(5); // three events, the cursor line, and the empty string after the last \n
        assertThat(lines[4]).isEmpty();
        List<String> actions = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            JsonNode e = Seed.parse(lines[i]);
            assertThat(e.get("@timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
            assertThat(e.at("/ecs/version").asText()).startsWith("8.");
            assertThat(e.at("/event/kind").asText()).isEqualTo("event");
            assertThat(e.at("/event/category/0").asText()).isEqualTo("configuration");
            assertThat(e.at("/event/outcome").asText()).isEqualTo("success");
            assertThat(e.at("/event/id").asText()).matches("\\d+");
            assertThat(e.at("/organization/id").asText()).isEqualTo(ORG.toString());
            assertThat(e.at("/merge_synthesis/conflict_id").asText()).isEqualTo(conflict.toString());
            assertThat(e.at("/merge_synthesis/dedup_key").asText()).isEqualTo(DEDUP_KEY);
            assertThat(e.at("/merge_synthesis/target").asText()).isEqualTo(TARGET);
            assertThat(e.at("/merge_synthesis/action").asText()).isEqualTo("data_export");
            actions.add(e.at("/event/action").asText() + "/" + e.at("/event/severity").asInt());
        }
        assertThat(actions).containsExactly("conflict-detected/3", "conflict-acknowledged/1", "conflict-resolved/2");
        JsonNode resolved = Seed.parse(lines[2]);
        assertThat(resolved.at("/merge_synthesis/resolution").asText()).isEqualTo("manual");
        assertThat(resolved.at("/merge_synthesis/resolution_note").asText()).isEqualTo(NOTE);
        assertThat(Seed.parse(lines[0]).at("/merge_synthesis/rule_count").asInt()).isEqualTo(2);
        assertThat(Seed.parse(lines[3]).fieldNames()).toIterable().containsExactly("next_cursor");
    }

    @Test
    void cefLinesRoundTripThroughAParserThatKnowsOnlyTheStandard() throws Exception {
        String text = exported(EventFormat.CEF);
        assertThat(text).endsWith("\n");
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        assertThat(lines).hasSize(3); // no trailer, and no value broke a line

        List<Cef> parsed = new ArrayList<>();
        for (String line : lines) {
            parsed.add(Cef.parse(line));
        }
        assertThat(parsed).extracting(c -> c.header.get(4) + "/" + c.header.get(6))
                .containsExactly("conflict_detected/3", "conflict_acknowledged/1", "conflict_resolved/2");
        for (Cef cef : parsed) {
            assertThat(cef.header.subList(0, 3)).containsExactly("CEF:0", "merge-synthesis", "merge-synthesis");
            assertThat(cef.ext).containsEntry("cs3Label", "dedupKey").containsEntry("cs3", DEDUP_KEY)
                    .containsEntry("cs4Label", "target").containsEntry("cs4", TARGET)
                    .containsEntry("cs1", ORG.toString()).containsEntry("cs2", conflict.toString())
                    .containsEntry("outcome", "success");
            assertThat(cef.ext.get("rt")).matches("\\d{13}");
            assertThat(cef.ext.get("externalId")).matches("\\d+");
            // The forged keys inside values stayed inside them.
            assertThat(cef.ext.keySet()).doesNotContain("forged");
        }
        Cef resolved = parsed.get(2);
        assertThat(resolved.ext).containsEntry("act", "conflict-resolved").containsEntry("msg", NOTE)
                .containsEntry("cs6Label", "resolution").containsEntry("cs6", "manual");
        assertThat(parsed.get(0).ext).doesNotContainKeys("cs6", "cs6Label", "msg");
    }

    /** A merge's event with an owner and a target chosen to break both formats, as a policy author could write them. */
    private static StoredEvent mergeEvent(String details) {
        return eventOf("merge_synthesized", details);
    }

    private static StoredEvent eventOf(String type, String details) {
        return new StoredEvent(41, 700, ORG, UUID.randomUUID(), type, Instant.now(), details,
                "engine-key", "tool_call", "jira.create_issue", "pol-org");
    }

    static final String MERGE_DETAILS = """
            {"attempt": 1, "synthesizer": "llm", "provider": "anthropic", "model": "m", "resolved_effect": "deny",
             "merged_rule": {"effect": "deny", "target": %s, "scope": "org", "scope_id": %s,
                             "based_on_policy_id": "pol-org"},
             "check": {"result": "passed", "version": 1}}""".formatted(Seed.quote(TARGET), Seed.quote(DEDUP_KEY));

    @Test
    void aMergesEffectTargetLayerOwnerAndCheckReachCefAsTheirOwnKeysIntact() {
        Cef cef = Cef.parse(EventFormat.CEF.lines().line(mergeEvent(MERGE_DETAILS)));
        assertThat(cef.ext)
                .containsEntry("mergeSynthesisMergedEffect", "deny")
                .containsEntry("mergeSynthesisMergedTarget", TARGET)
                .containsEntry("mergeSynthesisMergedScope", "org")
                .containsEntry("mergeSynthesisMergedScopeId", DEDUP_KEY)
                .containsEntry("mergeSynthesisCheckResult", "passed")
                .containsEntry("mergeSynthesisCheckVersion", "1")
                .containsEntry("act", "merge-synthesized");
        assertThat(cef.ext.keySet()).doesNotContain("forged");
    }

    @Test
    void aMergesFieldsSitUnderMergeSynthesisInNdjsonBesideTheConflictsOwnTarget() {
        JsonNode e = Seed.parse(EventFormat.NDJSON.lines().line(mergeEvent(MERGE_DETAILS)));
        assertThat(e.at("/merge_synthesis/target").asText()).as("the conflict's target").isEqualTo("jira.create_issue");
        assertThat(e.at("/merge_synthesis/resolved_effect").asText()).isEqualTo("deny");
        assertThat(e.at("/merge_synthesis/merged_rule/effect").asText()).isEqualTo("deny");
        assertThat(e.at("/merge_synthesis/merged_rule/target").asText()).isEqualTo(TARGET);
        assertThat(e.at("/merge_synthesis/merged_rule/scope").asText()).isEqualTo("org");
        assertThat(e.at("/merge_synthesis/merged_rule/scope_id").asText()).isEqualTo(DEDUP_KEY);
        assertThat(e.at("/merge_synthesis/check/result").asText()).isEqualTo("passed");
        assertThat(e.at("/merge_synthesis/check/version").asInt()).isEqualTo(1);
    }

    static final String ACCEPTED_DETAILS = """
            {"inbox_status": "resolved", "resolution": "accepted_suggestion", "synthesis_state": "done",
             "resolved_effect": "allow",
             "merged_rule": {"effect": "allow", "target": %s, "scope": "member", "scope_id": "m-1",
                             "based_on_policy_id": "pol-mbr"},
             "loser_actions": [{"policy_id": %s, "action": "narrow", "detail": "deny x.* except x.y"},
                               {"policy_id": "pol-b", "action": "remove", "detail": "shadowed"}]}"""
            .formatted(Seed.quote(TARGET), Seed.quote(DEDUP_KEY));

    @Test
    void anAcceptedMergeReachesCefAsTheMergeKeysAndOneKeyOfLoserActions() {
        Cef cef = Cef.parse(EventFormat.CEF.lines().line(eventOf("conflict_resolved", ACCEPTED_DETAILS)));
        assertThat(cef.ext)
                .containsEntry("act", "conflict-resolved")
                .containsEntry("cs6", "accepted_suggestion")
                .containsEntry("mergeSynthesisMergedEffect", "allow")
                .containsEntry("mergeSynthesisMergedTarget", TARGET)
                .containsEntry("mergeSynthesisMergedScope", "member")
                .containsEntry("mergeSynthesisMergedScopeId", "m-1")
                .containsKey("mergeSynthesisLoserActions");
        assertThat(cef.ext.keySet()).doesNotContain("forged");
        JsonNode losers = Seed.parse(cef.ext.get("mergeSynthesisLoserActions"));
        assertThat(losers).hasSize(2);
        assertThat(losers.at("/0/policy_id").asText()).isEqualTo(DEDUP_KEY);
        assertThat(losers.at("/0/action").asText()).isEqualTo("narrow");
        assertThat(losers.at("/1/policy_id").asText()).isEqualTo("pol-b");
        assertThat(losers.at("/1/action").asText()).isEqualTo("remove");
    }

    @Test
    void anAcceptedMergeSitsNestedUnderMergeSynthesisInNdjson() {
        JsonNode e = Seed.parse(EventFormat.NDJSON.lines().line(eventOf("conflict_resolved", ACCEPTED_DETAILS)));
        assertThat(e.at("/event/action").asText()).isEqualTo("conflict-resolved");
        assertThat(e.at("/merge_synthesis/merged_rule/target").asText()).isEqualTo(TARGET);
        assertThat(e.at("/merge_synthesis/merged_rule/based_on_policy_id").asText()).isEqualTo("pol-mbr");
        assertThat(e.at("/merge_synthesis/loser_actions/0/policy_id").asText()).isEqualTo(DEDUP_KEY);
        assertThat(e.at("/merge_synthesis/loser_actions/0/detail").asText()).isEqualTo("deny x.* except x.y");
        assertThat(e.at("/merge_synthesis/loser_actions/1/action").asText()).isEqualTo("remove");
    }

    @Test
    void aResolutionWithoutAMergeCarriesNoMergeKeysInCef() {
        Cef cef = Cef.parse(EventFormat.CEF.lines().line(eventOf("conflict_resolved",
                "{\"resolution\": \"manual\", \"resolution_note\": \"by hand\"}")));
        assertThat(cef.ext.keySet()).noneMatch(key -> key.startsWith("mergeSynthesis"));
    }

    @Test
    void aMergeEventWrittenBeforeTheCheckCarriesNoMergeKeysInCef() {
        Cef cef = Cef.parse(EventFormat.CEF.lines().line(mergeEvent(
                "{\"attempt\":1,\"synthesizer\":\"stub\",\"provider\":\"stub\",\"model\":\"stub-merge-v1\"}")));
        assertThat(cef.ext.keySet()).noneMatch(key -> key.startsWith("mergeSynthesis"));
    }

    @Test
    void headerFieldsEscapeBackslashAndPipeAndCannotBreakTheLine() {
        String hostile = "a|b\\c=d\ne Zürich ✓";
        String line = "CEF:0|" + CefLines.header(hostile) + "|p|1|c|n|5|k=" + CefLines.extensionValue(hostile);
        Cef cef = Cef.parse(line);
        assertThat(cef.header.get(1)).isEqualTo("a|b\\c=d e Zürich ✓");
        assertThat(cef.ext).containsExactly(Map.entry("k", hostile));
    }

    /** A small CEF reader written from the format's description, independent of the writer. */
    record Cef(List<String> header, Map<String, String> ext) {

        static Cef parse(String line) {
            List<String> header = new ArrayList<>();
            StringBuilder field = new StringBuilder();
            int i = 0;
            while (header.size() < 7) {
                char c = line.charAt(i++);
                if (c == '\\') {
                    char next = line.charAt(i++);
                    if (next != '\\' && next != '|') {
                        throw new AssertionError("bad header escape \\" + next + " in " + line);
                    }
                    field.append(next);
                } else if (c == '|') {
                    header.add(field.toString());
                    field.setLength(0);
                } else {
                    field.append(c);
                }
            }
            return new Cef(header, extensions(line.substring(i)));
        }

        /** Keys are the word before each unescaped '='; a value runs up to the space before the next key. */
        static Map<String, String> extensions(String text) {
            List<int[]> keys = new ArrayList<>(); // {key start, '=' position}
            for (int i = 0; i < text.length(); i++) {
                if (text.charAt(i) == '=' && !escaped(text, i)) {
                    int start = i;
                    while (start > 0 && Character.isLetterOrDigit(text.charAt(start - 1))) {
                        start--;
                    }
                    if (start == i || (start > 0 && text.charAt(start - 1) != ' ')) {
                        throw new AssertionError("unescaped '=' inside a value at " + i + ": " + text);
                    }
                    keys.add(new int[] {start, i});
                }
            }
            Map<String, String> ext = new LinkedHashMap<>();
            for (int k = 0; k < keys.size(); k++) {
                int valueEnd = k + 1 < keys.size() ? keys.get(k + 1)[0] - 1 : text.length();
                String key = text.substring(keys.get(k)[0], keys.get(k)[1]);
                if (ext.put(key, unescape(text.substring(keys.get(k)[1] + 1, valueEnd))) != null) {
                    throw new AssertionError("key twice: " + key);
                }
            }
            return ext;
        }

        private static boolean escaped(String text, int at) {
            int backslashes = 0;
            for (int j = at - 1; j >= 0 && text.charAt(j) == '\\'; j--) {
                backslashes++;
            }
            return backslashes % 2 == 1;
        }

        private static String unescape(String value) {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char next = value.charAt(++i);
                switch (next) {
                    case '\\', '=' -> out.append(next);
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    // The product's escape for the line terminators and controls the standard names none for.
                    case 'u' -> {
                        out.append((char) Integer.parseInt(value.substring(i + 1, i + 5), 16));
                        i += 4;
                    }
                    default -> throw new AssertionError("bad extension escape \\" + next);
                }
            }
            return out.toString();
        }
    }
}
