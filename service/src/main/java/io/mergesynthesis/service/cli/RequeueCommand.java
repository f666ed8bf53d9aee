package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.core.SynthesisState;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.requeue.Requester;
import io.mergesynthesis.service.requeue.RequeueFilter;
import java.io.PrintStream;
import java.util.UUID;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code requeue config.yml --conflict ID} or {@code requeue config.yml [--org ORG_ID] [--failure-reason R]}: puts
 * conflicts marked {@code synthesis_max_attempts_exceeded} back to pending, for an operator with access to the
 * database but not to the HTTP API. The events name the command line ({@code requested_by: cli}) as who asked.
 * The count is printed last, after the database is closed, as {@code requeued N}.
 */
public class RequeueCommand extends ConfiguredCommand<MergeSynthesisConfiguration> {

    private final PrintStream out;
    private final PrintStream err;

    public RequeueCommand() {
        this(System.out, System.err);
    }

    /** For running in-process with the two streams captured. */
    public RequeueCommand(PrintStream out, PrintStream err) {
        super("requeue", "Put conflicts marked synthesis_max_attempts_exceeded back to pending: one by --conflict, "
                + "or all of --org and/or --failure-reason");
        this.out = out;
        this.err = err;
    }

    @Override
    public void configure(Subparser subparser) {
        super.configure(subparser);
        subparser.addArgument("--conflict").metavar("CONFLICT_ID").help("re-queue this one conflict");
        subparser.addArgument("--org").metavar("ORG_ID").help("re-queue the marked conflicts of this org");
        subparser.addArgument("--failure-reason").dest("failure_reason").metavar("REASON")
                .choices(RequeueFilter.FAILURE_REASONS)
                .help("re-queue the marked conflicts whose last attempt failed for this reason");
    }

    @Override
    protected void run(Bootstrap<MergeSynthesisConfiguration> bootstrap, Namespace namespace,
                       MergeSynthesisConfiguration config) throws Exception {
        UUID conflict = CommandDatabase.uuid(namespace, "conflict");
        UUID org = CommandDatabase.org(namespace);
        String reason = namespace.getString("failure_reason");
        if (conflict != null && (org != null || reason != null)) {
            throw new CommandDatabase.CommandRefused("--conflict names one conflict; leave out --org and "
                    + "--failure-reason with it");
        }
        if (conflict == null && org == null && reason == null) {
            throw new CommandDatabase.CommandRefused("name what to re-queue: --conflict ID, or --org ORG_ID and/or "
                    + "--failure-reason REASON");
        }
        long requeued = CommandDatabase.use(config, err, transactions -> {
            ConflictRequeue requeue = new ConflictRequeue(transactions);
            if (conflict == null) {
                return requeue.matching(Requester.commandLine(), new RequeueFilter(org, reason));
            }
            ConflictRequeue.Single one = requeue.one(Requester.commandLine(), null, conflict);
            return switch (one.kind()) {
                case REQUEUED -> 1L;
                case NOT_FOUND -> throw new CommandDatabase.CommandRefused("no conflict " + conflict);
                case NOT_MARKED -> throw new CommandDatabase.CommandRefused("conflict " + conflict + " is in "
                        + "synthesis state " + one.conflict().orElseThrow().synthesisState().wireName() + ", not "
                        + SynthesisState.MAX_ATTEMPTS_EXCEEDED.wireName() + ": nothing changed");
            };
        });
        out.println("requeued " + requeued);
        out.flush();
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        CommandDatabase.report(cli.getStdErr(), e);
    }
}
