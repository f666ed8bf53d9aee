package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.core.EventPosition;
import io.mergesynthesis.service.export.CursorPastRetention;
import io.mergesynthesis.service.export.EventCursor;
import io.mergesynthesis.service.export.EventExport;
import io.mergesynthesis.service.export.EventFormat;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.UUID;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code export-events --format ndjson|cef [--after CURSOR] [--org ORG_ID] [--limit N] config.yml}: one page
 * of the event stream to standard output, as the platform identity, and the next cursor alone as the last
 * line of standard error, so that a cron job can save it and pass it back as {@code --after}.
 */
public class ExportEventsCommand extends ConfiguredCommand<MergeSynthesisConfiguration> {

    private final PrintStream out;
    private final PrintStream err;

    public ExportEventsCommand() {
        this(System.out, System.err);
    }

    /** For running in-process with the two streams captured. */
    public ExportEventsCommand(PrintStream out, PrintStream err) {
        super("export-events", "Write the conflict event stream to standard output; the next cursor goes to "
                + "standard error as its last line");
        this.out = out;
        this.err = err;
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("--format").required(true)
                .choices(Arrays.stream(EventFormat.values()).map(EventFormat::wireName).toList())
                .help("ndjson (Elastic Common Schema names) or cef");
        subparser.addArgument("--after").metavar("CURSOR").help("the cursor a previous run printed; omit to start at the beginning");
        subparser.addArgument("--org").metavar("ORG_ID").help("export only this org's events (default: every org)");
        subparser.addArgument("--limit").metavar("N").type(Integer.class).setDefault(EventExport.DEFAULT_LIMIT)
                .help("at most this many events, 1 to " + EventExport.MAX_LIMIT);
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<MergeSynthesisConfiguration> bootstrap, Namespace namespace,
                       MergeSynthesisConfiguration config) throws Exception {
        EventFormat format = EventFormat.fromWireName(namespace.getString("format")).orElseThrow();
        EventPosition after = EventCursor.decode(namespace.getString("after"));
        int limit = namespace.getInt("limit");
        if (limit < 1 || limit > EventExport.MAX_LIMIT) {
            throw new CommandDatabase.CommandRefused("--limit must be from 1 to " + EventExport.MAX_LIMIT + ", got " + limit);
        }
        UUID org = CommandDatabase.org(namespace);
        String next = CommandDatabase.use(config, err, transactions -> {
            EventExport export = new EventExport(transactions);
            EventExport.Page page;
            try {
                page = export.plan(org, after, limit);
            } catch (CursorPastRetention e) {
                throw new CommandDatabase.CommandRefused(e.getMessage());
            }
            export.write(page, format, out);
            out.flush();
            return page.nextCursor();
        });
        // Last, after the database is closed, so that no log line can follow the cursor.
        err.println(next);
        err.flush();
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        CommandDatabase.report(cli.getStdErr(), e);
    }
}
