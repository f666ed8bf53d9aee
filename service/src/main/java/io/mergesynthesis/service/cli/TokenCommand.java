package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.auth.TokenStore.MintedToken;
import java.util.Arrays;
import java.util.UUID;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code token create --role ROLE [--org ORG_ID] config.yml}: mints a token and prints it as the last line. */
public class TokenCommand extends ConfiguredCommand<MergeSynthesisConfiguration> {

    public TokenCommand() {
        super("token", "Mint a bearer token: token create --role ROLE [--org ORG_ID] config.yml");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("action").choices("create").help("what to do; only create exists");
        subparser.addArgument("--role").required(true)
                .choices(Arrays.stream(Role.values()).map(Role::wireName).toList())
                .help("what the token may do");
        subparser.addArgument("--org").help("the org the token is bound to (every role but platform)");
        super.configure(subparser);
    }

    @Override
    protected void run(Bootstrap<MergeSynthesisConfiguration> bootstrap, Namespace namespace,
                       MergeSynthesisConfiguration config) throws Exception {
        Role role = Role.fromWireName(namespace.getString("role")).orElseThrow();
        UUID org = CommandDatabase.org(namespace);
        MintedToken token = CommandDatabase.use(config, transactions -> new TokenStore(transactions).mint(role, org));
        // Printed only after the database is closed, so that no log line can land after the token.
        System.out.println("Minted " + role.wireName() + " token " + token.id()
                + (org == null ? " for every org" : " for org " + org)
                + ". It is shown once and stored only as a hash:");
        System.out.println(token.secret());
        System.out.flush();
    }
}
