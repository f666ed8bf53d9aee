package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.standin.StandInProvider;
import java.util.ArrayList;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code stand-in-provider}: a local model provider speaking both wire protocols on 127.0.0.1, for trying the
 * LLM path without a key or a bill, and for drills and benchmarks. It writes valid merges by itself and can be
 * told to be slow, to rate-limit, or to fail. Runs until stopped. Every flag the stand-in knows is offered and
 * passed on as given: its own list is the only one, so a flag added there cannot be missing here.
 */
public class StandInProviderCommand extends Command {

    public StandInProviderCommand() {
        super("stand-in-provider", "A local model provider (Anthropic and OpenAI wire protocols) for trying the "
                + "LLM synthesizer, drills and benchmarks; listens on 127.0.0.1 only");
    }

    @Override
    public void configure(Subparser subparser) {
        StandInProvider.FLAGS.forEach((flag, help) -> subparser.addArgument(flag).dest(flag).help(help));
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        StandInProvider.main(arguments(namespace));
    }

    /** The stand-in's own arguments, as parsed from the command line. */
    static String[] arguments(Namespace namespace) {
        List<String> args = new ArrayList<>();
        for (String flag : StandInProvider.FLAGS.keySet()) {
            Object value = namespace.get(flag);
            if (value != null) {
                args.add(flag);
                args.add(value.toString());
            }
        }
        return args.toArray(String[]::new);
    }
}
