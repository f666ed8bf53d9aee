package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.counts.ConflictCountUpkeep;
import io.mergesynthesis.service.db.ConflictCounts;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * Database maintenance. {@code db migrate config.yml} applies pending schema migrations and exits, waiting for the
 * database for up to {@code databaseStartupWait}: the one command that changes the schema of a database of one's
 * own. {@code db recount config.yml} recounts every org's conflicts and replaces the counts the schema keeps
 * (docs/adr/0042), printing where they had drifted: a repair for counts changed by hand, safe while replicas run.
 * {@code db retention config.yml [--dry-run]} drops the monthly partitions past {@code retention.months}
 * (docs/adr/0049) and makes those of the months ahead, as each replica does daily, printing one line per partition
 * dropped; with {@code --dry-run} it only prints what it would drop.
 */
public class DatabaseCommand extends ConfiguredCommand<MergeSynthesisConfiguration> {

    private final PrintStream out;
    private final PrintStream err;

    public DatabaseCommand() {
        this(System.out, System.err);
    }

    /** For running in-process with standard error captured. */
    public DatabaseCommand(PrintStream err) {
        this(System.out, err);
    }

    /** For running in-process with both streams captured. */
    public DatabaseCommand(PrintStream out, PrintStream err) {
        super("db", "Database maintenance: db migrate config.yml, db recount config.yml, "
                + "db retention config.yml [--dry-run]");
        this.out = out;
        this.err = err;
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("migrate", "recount", "retention")
                .help("migrate: apply pending migrations; recount: count every org's conflicts afresh; retention: "
                        + "drop the months past retention.months");
        super.configure(subparser);
        subparser.addArgument("--dry-run").dest("dry_run").action(Arguments.storeTrue())
                .help("with retention: print what would be dropped, and change nothing");
    }

    @Override
    protected void run(Bootstrap<MergeSynthesisConfiguration> bootstrap, Namespace namespace,
                       MergeSynthesisConfiguration config) throws Exception {
        if ("recount".equals(namespace.getString("action"))) {
            recount(config);
            return;
        }
        if ("retention".equals(namespace.getString("action"))) {
            new RetentionRun(out, err).run(config, Boolean.TRUE.equals(namespace.getBoolean("dry_run")));
            return;
        }
        int applied = CommandDatabase.migrate(config);
        err.println(applied == 0 ? "The schema is current: nothing to apply." : "Applied " + applied + " migration(s).");
        err.flush();
    }

    private void recount(MergeSynthesisConfiguration config) throws Exception {
        List<ConflictCounts.Drift> drift = new ArrayList<>();
        long rows = CommandDatabase.use(config, err, transactions -> {
            ConflictCountUpkeep upkeep = new ConflictCountUpkeep(transactions);
            drift.addAll(upkeep.drift());
            return upkeep.recount();
        });
        for (ConflictCounts.Drift each : drift) {
            err.println("org " + each.org() + ", " + each.state().wireName() + " and " + each.status().wireName()
                    + ": kept " + each.kept() + ", counted " + each.actual());
        }
        err.println((drift.isEmpty() ? "The counts were exact." : drift.size() + " count(s) had drifted.")
                + " Counted afresh: " + rows + " count row(s) written.");
        err.flush();
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        CommandDatabase.report(cli.getStdErr(), e);
    }
}
