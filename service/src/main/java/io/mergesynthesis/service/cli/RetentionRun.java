package io.mergesynthesis.service.cli;

import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.core.MonthPartition;
import io.mergesynthesis.service.retention.PartitionUpkeep;
import java.io.PrintStream;

/**
 * {@code db retention}: one run of the partitions' upkeep from the command line, for an operator who wants the
 * months past the retention gone now, or to see first what would go. One line per partition, printed after the
 * database is closed: {@code dropped <partition> <month> <bytes>} ({@code would drop} with a dry run), then
 * {@code dropped N partition(s), B bytes}.
 */
final class RetentionRun {

    private final PrintStream out;
    private final PrintStream err;

    RetentionRun(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    void run(MergeSynthesisConfiguration config, boolean dryRun) throws Exception {
        if (config.getRetention().keptMonths().isEmpty()) {
            throw new CommandDatabase.CommandRefused("retention.months is not set, so every month is kept and "
                    + "nothing is dropped; set it (2 or more) in the configuration first");
        }
        PartitionUpkeep.Outcome outcome = CommandDatabase.use(config, err, transactions -> {
            PartitionUpkeep upkeep = PartitionUpkeep.of(transactions, config.getRetention());
            return dryRun ? upkeep.dryRun() : upkeep.run();
        });
        if (!outcome.hadTurn()) {
            throw new CommandDatabase.CommandRefused("a replica is running the partitions' upkeep right now; "
                    + "run the command again in a minute");
        }
        String verb = dryRun ? "would drop" : "dropped";
        long bytes = 0;
        for (MonthPartition partition : outcome.dropped()) {
            out.println(verb + " " + partition.name() + " " + partition.month() + " " + partition.bytes());
            bytes += partition.bytes();
        }
        out.println(verb + " " + outcome.dropped().size() + " partition(s), " + bytes + " bytes, keeping "
                + config.getRetention().getMonths() + " months");
        out.flush();
    }
}
