package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.BatchMembership;
import io.mergesynthesis.service.core.ProviderBatch;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The batch lane's batches as people see them: listed for the operator, named on the conflict in one, and
 * canceled by the platform or by an org's change of settings. A cancel is a timestamp on the batch's row; the
 * replica that polls the batch next asks the provider (see {@code worker/batch}).
 */
public final class LlmBatches {

    private LlmBatches() {
    }

    /** The newest batches of every org; cross-tenant. */
    public static List<ProviderBatch> recent(Handle handle, int limit) {
        return handle.createQuery(RECENT).bind("limit", limit).map((rs, ctx) -> batch(rs)).list();
    }

    /** Asks that batch {@code id} be canceled; the batch, or empty when there is none. Cross-tenant. */
    public static Optional<ProviderBatch> cancel(Handle handle, UUID id) {
        return handle.createQuery(CANCEL).bind("id", id).map((rs, ctx) -> batch(rs)).findOne();
    }

    /**
     * After {@code org}'s settings changed: its batches are canceled when it left the batch lane
     * ({@code laneLeft}), or when its budget is now below what it spent and its batches reserved. The batches
     * asked to cancel.
     */
    public static List<UUID> cancelForSettings(Handle handle, UUID org, boolean laneLeft) {
        return handle.createQuery(CANCEL_FOR_SETTINGS).bind("org", org).bind("laneLeft", laneLeft)
                .mapTo(UUID.class).list();
    }

    /** The batch conflict {@code id} is in; empty when it is in none. Under the conflict's org scope. */
    public static Optional<BatchMembership> ofConflict(Handle handle, UUID id) {
        return handle.createQuery(OF_CONFLICT).bind("id", id)
                .map((rs, ctx) -> new BatchMembership(rs.getObject("id", UUID.class), rs.getString("provider"),
                        rs.getString("model"), rs.getString("provider_batch_id"), rs.getString("state"),
                        instant(rs.getTimestamp("batched_at")), instant(rs.getTimestamp("cancel_requested_at"))))
                .findOne();
    }

    private static ProviderBatch batch(ResultSet rs) throws SQLException {
        return new ProviderBatch(rs.getObject("id", UUID.class), rs.getObject("org_id", UUID.class),
                rs.getString("provider"), rs.getString("model"), rs.getString("provider_batch_id"),
                rs.getString("state"), rs.getInt("requests"), rs.getBigDecimal("reserved_cost_usd"),
                rs.getBigDecimal("cost_usd"), instant(rs.getTimestamp("created_at")),
                instant(rs.getTimestamp("ended_at")), instant(rs.getTimestamp("cancel_requested_at")),
                rs.getString("cancel_reason"), instant(rs.getTimestamp("cancel_sent_at")));
    }

    private static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }

    private static final String RECENT = SqlFiles.of(LlmBatches.class, "recent");
    private static final String CANCEL = SqlFiles.of(LlmBatches.class, "cancel");
    private static final String CANCEL_FOR_SETTINGS = SqlFiles.of(LlmBatches.class, "cancel_for_settings");
    private static final String OF_CONFLICT = SqlFiles.of(LlmBatches.class, "of_conflict");
}
