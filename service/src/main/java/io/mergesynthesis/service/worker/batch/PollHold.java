package io.mergesynthesis.service.worker.batch;

import io.mergesynthesis.synthesis.Ticker;
import java.time.Duration;

/**
 * A poller's hold on one batch, kept short and renewed as the poll goes on: before each call to the provider, and
 * every third of the hold while results are stored. A poller that dies stops renewing, and the batch is another
 * replica's once the hold runs out; one that finds its hold lost stops, leaving the rest to the new holder, whose
 * reading of the results writes nothing twice.
 */
final class PollHold {

    /** The hold was taken over: this poller has nothing more to do with the batch. */
    static final class Lost extends RuntimeException {
        Lost(BatchRow row) {
            super("the hold on batch " + row.id() + " was lost; its new holder goes on");
        }
    }

    private final BatchRows rows;
    private final BatchRow row;
    private final String owner;
    private final Duration hold;
    private final Ticker ticker;
    private long renewedAt;

    PollHold(BatchRows rows, BatchRow row, String owner, Duration hold, Ticker ticker) {
        this.ticker = ticker;
        this.renewedAt = ticker.nanos();
        this.rows = rows;
        this.row = row;
        this.owner = owner;
        this.hold = hold;
    }

    /** Renews the hold now; before a call to the provider, which may take up to half a hold. */
    void renew() {
        if (!rows.renewPoll(row, owner, hold)) {
            throw new Lost(row);
        }
        renewedAt = ticker.nanos();
    }

    /** Renews the hold when a third of it has gone by since the last renewal; between results stored. */
    void keep() {
        if (ticker.nanos() - renewedAt >= hold.toNanos() / 3) {
            renew();
        }
    }
}
