package io.mergesynthesis.service.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.service.core.ReplicaBeat;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;

/** The SQL of {@code replica_heartbeats}; every statement runs on a cross-tenant handle. */
public final class ReplicaHeartbeats {

    private static final String BEAT = SqlFiles.of(ReplicaHeartbeats.class, "beat");
    private static final String ALL = SqlFiles.of(ReplicaHeartbeats.class, "all");
    private static final ObjectMapper JSON = new ObjectMapper();

    private ReplicaHeartbeats() {
    }

    /** Writes {@code beat} as its replica's row, and deletes the rows of replicas silent for ten intervals. */
    public static void beat(Handle handle, ReplicaBeat beat) {
        handle.createUpdate(BEAT)
                .bind("replica", beat.replicaId())
                .bind("host", beat.host())
                .bind("version", beat.version())
                .bind("startedAt", Timestamp.from(beat.startedAt()))
                .bind("intervalMs", (int) Math.min(Integer.MAX_VALUE, beat.interval().toMillis()))
                .bind("workers", beat.workers())
                .bind("inFlight", beat.inFlight())
                .bind("lastClaimAt", beat.lastClaimAt() == null ? null : Timestamp.from(beat.lastClaimAt()))
                .bind("now", Timestamp.from(beat.beatAt()))
                .bind("stoppedAt", beat.stoppedAt() == null ? null : Timestamp.from(beat.stoppedAt()))
                .bind("providers", providersJson(beat.providers()))
                .execute();
    }

    /** Every row, the longest running replica first. */
    public static List<ReplicaBeat> all(Handle handle) {
        return handle.createQuery(ALL)
                .map((rs, ctx) -> new ReplicaBeat(rs.getString("replica_id"), rs.getString("host"),
                        rs.getString("version"), instant(rs.getObject("started_at", OffsetDateTime.class)),
                        Duration.ofMillis(rs.getInt("interval_ms")), rs.getInt("workers"), rs.getInt("in_flight"),
                        instant(rs.getObject("last_claim_at", OffsetDateTime.class)),
                        instant(rs.getObject("beat_at", OffsetDateTime.class)),
                        instant(rs.getObject("stopped_at", OffsetDateTime.class)),
                        providers(rs.getString("providers"))))
                .list();
    }

    /** {@code {"<provider>": {"circuit_open": .., "circuit_detail": .., "concurrency_limit": .., "rps": ..}}}. */
    static String providersJson(List<ReplicaBeat.Provider> providers) {
        ObjectNode all = JSON.createObjectNode();
        for (ReplicaBeat.Provider p : providers) {
            ObjectNode one = all.putObject(p.name());
            one.put("circuit_open", p.circuitOpen());
            one.put("circuit_detail", p.circuitDetail());
            if (p.concurrencyLimit() != null) {
                one.put("concurrency_limit", p.concurrencyLimit());
            }
            one.put("requests_per_second", p.requestsPerSecond());
        }
        return all.toString();
    }

    static List<ReplicaBeat.Provider> providers(String json) {
        List<ReplicaBeat.Provider> providers = new ArrayList<>();
        JsonNode all;
        try {
            all = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            // A row another build wrote in a shape this one cannot read shows no providers rather than no page.
            return providers;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = all.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode p = e.getValue();
            providers.add(new ReplicaBeat.Provider(e.getKey(), p.path("circuit_open").asBoolean(false),
                    p.path("circuit_detail").asText(""),
                    p.hasNonNull("concurrency_limit") ? p.get("concurrency_limit").asInt() : null,
                    p.path("requests_per_second").asDouble(0)));
        }
        return providers;
    }

    private static Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }
}
