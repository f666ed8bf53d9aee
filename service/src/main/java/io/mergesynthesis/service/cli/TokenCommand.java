package io.mergesynthesis.service.cli;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.auth.TokenStore.ListedToken;
import io.mergesynthesis.service.auth.TokenStore.MintedToken;
import io.mergesynthesis.service.auth.TokenStore.Revocation;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * Token management:
 * <ul>
 *   <li>{@code token create --role ROLE [--org ORG_ID] [--expires-in 90d] config.yml} mints a token and prints
 *       it alone as the last line of standard output;</li>
 *   <li>{@code token list config.yml} shows every token by id and prefix, never its secret;</li>
 *   <li>{@code token revoke PREFIX|ID config.yml} revokes one.</li>
 * </ul>
 * Results are printed only after the database is closed, so that no log line can land after them.
 */
public class TokenCommand extends ConfiguredCommand<MergeSynthesisConfiguration> {

    private static final Pattern EXPIRES_IN = Pattern.compile("(\\d{1,6})([mhd])");
    /** How long a token lasts unless {@code --expires-in} says otherwise: a departed holder's token runs out. */
    static final Duration DEFAULT_LIFETIME = Duration.ofDays(90);

    private final PrintStream out;
    private final PrintStream err;

    public TokenCommand() {
        this(System.out, System.err);
    }

    /** For running in-process with the two streams captured. */
    public TokenCommand(PrintStream out, PrintStream err) {
        super("token", "Manage bearer tokens: token create|list|revoke ... config.yml");
        this.out = out;
        this.err = err;
    }

    @Override
    public void configure(Subparser subparser) {
        Subparsers actions = subparser.addSubparsers().dest("action").metavar("ACTION");
        Subparser create = actions.addParser("create")
                .help("mint a token; it is the last line of standard output, shown once");
        create.addArgument("--role").required(true)
                .choices(Arrays.stream(Role.values()).map(Role::wireName).toList())
                .help("what the token may do");
        create.addArgument("--org").metavar("ORG_ID").help("the org the token is bound to (every role but platform)");
        create.addArgument("--expires-in").metavar("DURATION")
                .help("refuse the token after this long: minutes, hours or days, e.g. 30m, 12h, 90d, or never "
                        + "(default: 90d)");
        create.addArgument("--label").metavar("TEXT")
                .help("what the token is for, e.g. \"policy engine, eu-west\": shown in the token list and in "
                        + "every action the token makes");
        addFileArgument(create);
        Subparser list = actions.addParser("list")
                .help("every token: id, prefix, role, org, created, last used, expiry, state; never a secret");
        addFileArgument(list);
        Subparser revoke = actions.addParser("revoke")
                .help("revoke one token, named by its id or its prefix as token list shows them");
        revoke.addArgument("token").metavar("PREFIX|ID").help("the token's prefix (msk_...) or id");
        addFileArgument(revoke);
    }

    @Override
    protected void run(Bootstrap<MergeSynthesisConfiguration> bootstrap, Namespace namespace,
                       MergeSynthesisConfiguration config) throws Exception {
        switch (namespace.getString("action")) {
            case "create" -> create(namespace, config);
            case "list" -> list(config);
            case "revoke" -> revoke(namespace, config);
            default -> throw new IllegalStateException("unknown action " + namespace.getString("action"));
        }
    }

    private void create(Namespace namespace, MergeSynthesisConfiguration config) throws Exception {
        Role role = Role.fromWireName(namespace.getString("role")).orElseThrow();
        UUID org = CommandDatabase.org(namespace);
        Duration expiresIn = expiresIn(namespace.getString("expires_in"));
        String label = namespace.getString("label");
        MintedToken token = CommandDatabase.use(config, err,
                transactions -> new TokenStore(transactions).mint(role, org, expiresIn, label, null));
        out.println("Minted " + role.wireName() + " token " + token.id() + " (prefix " + token.prefix() + ")"
                + (org == null ? " for every org" : " for org " + org)
                + (label == null ? "" : ", labelled \"" + label.strip() + "\"")
                + (token.expiresAt() == null ? ", never expiring" : ", expiring " + show(token.expiresAt()))
                + ". It is shown once and stored only as a hash:");
        out.println(token.secret());
        out.flush();
    }

    private void list(MergeSynthesisConfiguration config) throws Exception {
        List<ListedToken> tokens = CommandDatabase.use(config, err, transactions -> new TokenStore(transactions).list());
        Instant now = Instant.now();
        String format = "%-36s  %-12s  %-10s  %-36s  %-20s  %-20s  %-20s  %-28s  %s%n";
        out.printf(Locale.ROOT, format, "ID", "PREFIX", "ROLE", "ORG", "CREATED", "LAST USED", "EXPIRES", "STATE",
                "LABEL");
        for (ListedToken t : tokens) {
            String state = t.revokedAt() != null ? "revoked " + show(t.revokedAt())
                    : t.expiresAt() != null && !now.isBefore(t.expiresAt()) ? "expired" : "active";
            out.printf(Locale.ROOT, format, t.id(), t.prefix() == null ? "-" : t.prefix(), t.role().wireName(),
                    t.orgId() == null ? "(every org)" : t.orgId(), show(t.createdAt()),
                    t.lastUsedAt() == null ? "never" : show(t.lastUsedAt()),
                    t.expiresAt() == null ? "never" : show(t.expiresAt()), state,
                    t.label() == null ? "-" : t.label());
        }
        out.flush();
    }

    private void revoke(Namespace namespace, MergeSynthesisConfiguration config) throws Exception {
        String which = namespace.getString("token");
        Revocation done = CommandDatabase.use(config, err, transactions -> new TokenStore(transactions).revoke(which));
        out.println(done == Revocation.REVOKED
                ? "Revoked " + which + ". Every replica refuses it within auth.tokenCacheTtl (5s by default)."
                : which + " was already revoked.");
        out.flush();
    }

    /**
     * {@code 30m}, {@code 12h}, {@code 90d}; {@link #DEFAULT_LIFETIME} when not given; null (no expiry) only for
     * an explicit {@code never}.
     */
    static Duration expiresIn(String text) {
        if (text == null) {
            return DEFAULT_LIFETIME;
        }
        if (text.trim().equalsIgnoreCase("never")) {
            return null;
        }
        Matcher m = EXPIRES_IN.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new CommandDatabase.CommandRefused("--expires-in takes a whole number of minutes, hours or days "
                    + "above zero, such as 30m, 12h or 90d, or never; got " + text);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    private static String show(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        CommandDatabase.report(cli.getStdErr(), e);
    }
}
