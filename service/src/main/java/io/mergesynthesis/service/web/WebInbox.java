package io.mergesynthesis.service.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.servlets.assets.AssetServlet;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.inbox.BulkActions;
import io.mergesynthesis.service.inbox.ConflictInbox;
import io.mergesynthesis.service.inbox.InboxReads;
import io.mergesynthesis.service.operator.BatchAdmin;
import io.mergesynthesis.service.operator.FailedList;
import io.mergesynthesis.service.operator.Fleet;
import io.mergesynthesis.service.operator.FleetActivity;
import io.mergesynthesis.service.operator.OrgDirectory;
import io.mergesynthesis.service.operator.ProviderShares;
import io.mergesynthesis.service.operator.Replicas;
import io.mergesynthesis.service.operator.SignedInPeople;
import io.mergesynthesis.service.operator.TokenAdmin;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import io.mergesynthesis.service.session.WebSessions;
import io.mergesynthesis.service.settings.OrgSettings;
import io.mergesynthesis.service.signin.SignInWithProvider;
import io.mergesynthesis.service.usage.MonthlyUsage;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Optional;

/**
 * The web inbox on the application port, beside the JSON API: server-rendered pages, a stylesheet and one small
 * script under {@value #STATIC_PATH}, and the safety headers of all of them (see docs/adr/0020-web-inbox.md).
 */
public final class WebInbox {

    public static final String STATIC_PATH = "/static";

    private WebInbox() {
    }

    /** The use cases the pages call: the same ones the JSON API calls, and the web's own sessions. */
    public record UseCases(WebSessions sessions, TokenStore tokens, InboxReads reads, ConflictInbox inbox,
                           ConflictRequeue requeue, MonthlyUsage usage, Fleet fleet, OrgSettings settings) {
    }

    /**
     * How people sign in: the identity provider, when one is configured; whether a token may be pasted; and the
     * console's public address, where the provider sends people back.
     */
    public record SignIn(Optional<SignInWithProvider> provider, boolean tokenSignIn, URI publicBase) {
    }

    /**
     * What the operator's own pages call beyond the overview: names, failures, replicas, the orgs' shares of the
     * calls, time, tokens and the people who signed in.
     */
    public record OperatorUseCases(OrgDirectory orgs, FailedList failed, Replicas replicas, ProviderShares shares,
                                   FleetActivity activity, TokenAdmin tokens, SignedInPeople people,
                                   BatchAdmin batches) {
    }

    /**
     * Registers the pages, their static files and their headers; the JSON API under /v1/ is left as it is.
     *
     * @param escalateBelow the confidence under which the LLM synthesizer asks a second model; a conflict's page flags
     *                      a merge under it
     */
    public static void install(Environment environment, UseCases uses, OperatorUseCases operator, SignIn signIn,
                               ObjectMapper json, Clock clock, double escalateBelow) {
        Pages pages = new Pages(new Templates(), uses.sessions(), clock, operator.orgs()::nameOf);
        environment.jersey().register(new SignInResource(pages, uses.tokens(), signIn.provider(),
                signIn.tokenSignIn(), signIn.publicBase()));
        environment.jersey().register(new InboxResource(pages, uses.reads(), uses.inbox(), uses.requeue(), json,
                escalateBelow));
        environment.jersey().register(new InboxLiveResource(pages, uses.reads(), json));
        environment.jersey().register(new BulkActionsResource(pages,
                new BulkActions(uses.reads(), uses.inbox(), uses.requeue())));
        environment.jersey().register(new UsagePageResource(pages, uses.usage()));
        environment.jersey().register(new OperatorResource(pages, uses.fleet(), uses.settings(), operator.orgs()));
        environment.jersey().register(new OrgPageResource(pages, operator.orgs()));
        environment.jersey().register(new FailedPageResource(pages, operator.failed(), operator.orgs(),
                uses.requeue()));
        environment.jersey().register(new ReplicasPageResource(pages, operator.replicas(), operator.shares(),
                operator.orgs()));
        environment.jersey().register(new BatchesPageResource(pages, operator.batches(), operator.orgs()));
        environment.jersey().register(new TimePageResource(pages, operator.activity()));
        environment.jersey().register(new TokensPageResource(pages, operator.tokens(), operator.orgs(),
                operator.people()));
        environment.servlets().addServlet("web-static",
                        new AssetServlet("/web/static", STATIC_PATH, null, StandardCharsets.UTF_8))
                .addMapping(STATIC_PATH + "/*");
        environment.servlets().addFilter("web-page-headers", new PageHeaders(signIn.provider()
                        .map(p -> p.provider().origin()).orElse(null)))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    }
}
