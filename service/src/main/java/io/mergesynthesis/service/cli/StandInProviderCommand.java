package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.llm.standin.StandInProvider;
import java.util.ArrayList;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code stand-in-provider}: a local model provider speaking both wire protocols on 127.0.0.1, for trying the
 * LLM path without a key or a bill, and for drills and benchmarks. It writes valid merges by itself and can be
 * told to be slow, to rate-limit, or to fail. Runs until stopped.
 */
public class StandInProviderCommand extends Command {

    private static final String[][] FLAGS = {
            {"--port", "port to listen on (default 9090)"},
            {"--latency", "how long each answer takes, e.g. 50ms or 2s"},
            {"--rate-limit", "requests per second answered before 429s (0: no limit)"},
            {"--failure-rate", "share of requests answered with a failure, 0 to 1"},
            {"--failure-kind", "which failure: server_error, overloaded, not_json, unknown_policy, missing_field"},
            {"--confidence", "the confidence every answer carries, 0 to 1 (below llm.escalateBelow escalates)"},
            {"--key", "the only API key accepted; any other gets 401"}};

    public StandInProviderCommand() {
        super("stand-in-provider", "A local model provider (Anthropic and OpenAI wire protocols) for trying the "
                + "LLM synthesizer, drills and benchmarks; listens on 127.0.0.1 only");
    }

    @Override
    public void configure(Subparser subparser) {
        for (String[] flag : FLAGS) {
            subparser.addArgument(flag[0]).dest(flag[0]).help(flag[1]);
        }
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        List<String> args = new ArrayList<>();
        for (String[] flag : FLAGS) {
            Object value = namespace.get(flag[0]);
            if (value != null) {
                args.add(flag[0]);
                args.add(value.toString());
            }
        }
        StandInProvider.main(args.toArray(String[]::new));
    }
}
