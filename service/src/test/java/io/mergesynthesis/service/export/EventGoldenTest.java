package io.mergesynthesis.service.export;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.db.EventLog.EventType;
import io.mergesynthesis.service.db.EventStream.StoredEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Locks what a SIEM receives for every event type, in both formats, byte for byte: one event of each type with the
 * details the service writes for it. After an intended change to a format or to an event's details, run with
 * {@code GOLDEN_UPDATE=1} to rewrite {@code testdata/export_golden/}, then review the diff.
 */
class EventGoldenTest {

    private static final boolean UPDATE = "1".equals(System.getenv("GOLDEN_UPDATE"));

    static final UUID ORG = UUID.fromString("3f2a6c1e-8d4b-4f0a-9c2e-5b7d1a0e4c11");
    static final UUID CONFLICT = UUID.fromString("9b1e2d3c-4a5f-4e6d-8c7b-0a1f2e3d4c5b");
    static final UUID TOKEN = UUID.fromString("c0ffee00-1234-4abc-8def-000000000042");
    static final UUID SUBJECT = UUID.fromString("5ab1e000-0000-4000-8000-000000000007");

    /** One event of each type, with the details each writer of that type puts in. */
    static final List<StoredEvent> EVENTS = List.of(
            event(1, "conflict_detected", "2026-11-20T10:15:00Z", "{\"rule_count\":2}"),
            event(2, "synthesis_failed_permanently", "2026-11-20T10:15:07Z",
                    "{\"attempts\":3,\"max_attempts\":3,\"last_failure_reason\":\"invalid_json\"}"),
            event(3, "synthesis_requeued", "2026-11-20T11:00:00Z",
                    "{\"role\":\"platform\",\"token_id\":\"" + TOKEN + "\",\"requested_by\":\"token\","
                            + "\"previous_attempts\":3,\"previous_failure_reason\":\"invalid_json\"}"),
            event(4, "synthesis_requeued", "2026-11-20T11:05:00Z",
                    "{\"requested_by\":\"cli\",\"previous_attempts\":3,\"previous_failure_reason\":\"synthesizer\"}"),
            event(5, "merge_synthesized", "2026-11-20T11:00:02Z",
                    "{\"attempt\":1,\"synthesizer\":\"stub\",\"provider\":\"stub\",\"model\":\"stub-merge-v1\"}"),
            event(6, "conflict_acknowledged", "2026-11-20T11:30:00Z",
                    "{\"dedup_key\":\"engine-key-17\",\"action\":\"tool_call\",\"target\":\"jira.create_issue\","
                            + "\"inbox_status\":\"acknowledged\",\"token_id\":\"" + TOKEN + "\"}"),
            event(7, "conflict_resolved", "2026-11-20T11:31:00Z",
                    "{\"dedup_key\":\"engine-key-17\",\"action\":\"tool_call\",\"target\":\"jira.create_issue\","
                            + "\"inbox_status\":\"resolved\",\"resolution\":\"accepted_suggestion\","
                            + "\"resolution_note\":\"applied as suggested\",\"synthesis_state\":\"done\","
                            + "\"resolved_effect\":\"deny\",\"merged_rule\":{\"effect\":\"deny\","
                            + "\"target\":\"jira.*\",\"scope\":\"org\",\"scope_id\":\"" + ORG + "\","
                            + "\"based_on_policy_id\":\"pol-17\"},\"loser_actions\":[{\"policy_id\":\"pol-42\","
                            + "\"action\":\"remove\",\"detail\":\"shadowed by pol-17\"}],"
                            + "\"requested_by\":\"person\",\"user_id\":\"f3b1c2d4-alice\","
                            + "\"user_email\":\"alice@example.com\",\"user_name\":\"Alice Example\"}"),
            platformChange(8, ORG, "org_named", "2026-11-20T12:00:00Z",
                    "{\"name\":\"Acme Corp\",\"previous_name\":\"Acme\",\"requested_by\":\"token\","
                            + "\"token_id\":\"" + TOKEN + "\",\"role\":\"platform\"}"),
            platformChange(9, ORG, "token_minted", "2026-11-20T12:01:00Z",
                    "{\"subject_token_id\":\"" + SUBJECT + "\",\"subject_token_role\":\"siem\","
                            + "\"subject_token_prefix\":\"msk_a1b2c3d4\",\"requested_by\":\"token\","
                            + "\"token_id\":\"" + TOKEN + "\",\"role\":\"platform\","
                            + "\"expires_at\":\"2026-12-20T12:01:00Z\"}"),
            platformChange(10, null, "token_revoked", "2026-11-20T12:02:00Z",
                    "{\"subject_token_id\":\"" + SUBJECT + "\",\"subject_token_role\":\"platform\","
                            + "\"subject_token_prefix\":\"msk_e5f6a7b8\",\"requested_by\":\"cli\"}"),
            platformChange(11, ORG, "org_settings_changed", "2026-11-20T12:03:00Z",
                    "{\"model\":\"anthropic/claude-sonnet-4-5\",\"monthly_budget_usd\":250.00,"
                            + "\"requested_by\":\"token\",\"token_id\":\"" + TOKEN + "\","
                            + "\"token_label\":\"budget desk\",\"role\":\"platform\"}"),
            platformChange(12, ORG, "batch_cancel_requested", "2026-11-20T12:04:00Z",
                    "{\"batch_id\":\"5b0e7a51-2c3d-4e8f-9a6b-7c8d9e0f1a2b\",\"provider\":\"anthropic\","
                            + "\"provider_batch_id\":\"msgbatch_017\",\"requests\":120,\"requested_by\":\"token\","
                            + "\"token_id\":\"" + TOKEN + "\",\"token_label\":\"budget desk\","
                            + "\"role\":\"platform\"}"));

    /** An event of the platform's own: no conflict, and for a platform token's change no org either. */
    private static StoredEvent platformChange(long id, UUID org, String type, String at, String details) {
        return new StoredEvent(id, 700 + id, org, null, type, Instant.parse(at), details, null, null, null, null);
    }

    private static StoredEvent event(long id, String type, String at, String details) {
        return new StoredEvent(id, 700 + id, ORG, CONFLICT, type, Instant.parse(at), details, "engine-key-17",
                "tool_call", "jira.create_issue", "pol-17");
    }

    @ParameterizedTest
    @EnumSource(EventFormat.class)
    void everyEventTypeExportsAsTheGoldenFileSays(EventFormat format) throws Exception {
        StringBuilder actual = new StringBuilder();
        for (StoredEvent e : EVENTS) {
            actual.append(format.lines().line(e)).append('\n');
        }
        Path expected = goldenDir().resolve("events." + format.wireName());
        if (UPDATE) {
            Files.writeString(expected, actual, UTF_8);
        }
        assertThat(expected).as("%s is missing; run with GOLDEN_UPDATE=1 to write it", expected).exists();
        assertThat(Files.readString(expected, UTF_8))
                .as("%s differs from the export; if the change is intended, run with GOLDEN_UPDATE=1", expected)
                .isEqualTo(actual.toString());
    }

    @ParameterizedTest
    @EnumSource(EventType.class)
    void theGoldenEventsCoverEveryEventTypeTheServiceWrites(EventType type) {
        assertThat(EVENTS).extracting(StoredEvent::eventType).contains(type.dbName());
        // A type the vocabulary does not know would export as "unknown": every type the service writes is known.
        assertThat(EventVocabulary.of(type.dbName()).outcome()).isNotEqualTo("unknown");
    }

    private static Path goldenDir() throws Exception {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("testdata/merge_golden"))) {
                Path golden = dir.resolve("testdata/export_golden");
                if (UPDATE) {
                    Files.createDirectories(golden);
                }
                return golden;
            }
        }
        throw new IllegalStateException("testdata/ not found above " + Path.of("").toAbsolutePath());
    }
}
