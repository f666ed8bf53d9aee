package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import java.io.PrintStream;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code db migrate config.yml}: applies pending schema migrations and exits, waiting for the database for up to
 * {@code databaseStartupWait}. The one command that changes the schema of a database of one's own.
 */
public class MigrateCommand extends ConfiguredCommand<MergeSynthesisConfiguration> {

    private final PrintStream err;

    public MigrateCommand() {
        this(System.err);
    }

    /** For running in-process with standard error captured. */
    public MigrateCommand(PrintStream err) {
        super("db", "Database maintenance: db migrate config.yml");
        this.err = err;
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("migrate").help("what to do; only migrate exists");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<MergeSynthesisConfiguration> bootstrap, Namespace namespace,
                       MergeSynthesisConfiguration config) throws Exception {
        int applied = CommandDatabase.migrate(config);
        err.println(applied == 0 ? "The schema is current: nothing to apply." : "Applied " + applied + " migration(s).");
        err.flush();
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        CommandDatabase.report(cli.getStdErr(), e);
    }
}
