package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code db migrate config.yml}: applies pending schema migrations and exits. */
public class MigrateCommand extends ConfiguredCommand<MergeSynthesisConfiguration> {

    public MigrateCommand() {
        super("db", "Database maintenance: db migrate config.yml");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("migrate").help("what to do; only migrate exists");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<MergeSynthesisConfiguration> bootstrap, Namespace namespace,
                       MergeSynthesisConfiguration config) throws Exception {
        CommandDatabase.use(config, transactions -> null);
    }
}
