package io.mergesynthesis.service.db;

import io.mergesynthesis.service.core.ActivityBucket;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.jdbi.v3.core.Handle;

/** The fleet's activity over time, from the event stream, the attempt history and the ledger; cross-tenant. */
public final class FleetHistory {

    private static final String PER_BUCKET = SqlFiles.of(FleetHistory.class, "per_bucket");

    /** The two sizes of bucket the operator's charts use. */
    public enum Unit {
        MINUTE("minute", "1 minute"), DAY("day", "1 day");

        private final String field;
        private final String step;

        Unit(String field, String step) {
            this.field = field;
            this.step = step;
        }
    }

    private FleetHistory() {
    }

    /** One bucket per {@code unit} from the one holding {@code since} to the one holding {@code now}, oldest first. */
    public static List<ActivityBucket> buckets(Handle handle, Unit unit, Instant since, Instant now) {
        return handle.createQuery(PER_BUCKET)
                .bind("unit", unit.field)
                .bind("step", unit.step)
                .bind("since", Timestamp.from(since))
                .bind("now", Timestamp.from(now))
                .map((rs, ctx) -> new ActivityBucket(rs.getObject("bucket", OffsetDateTime.class).toInstant(),
                        rs.getLong("merges"), rs.getLong("failures"), rs.getLong("deferrals"),
                        rs.getBigDecimal("spend")))
                .list();
    }
}
