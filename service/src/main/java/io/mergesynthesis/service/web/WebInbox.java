package io.mergesynthesis.service.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.servlets.assets.AssetServlet;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.core.ModelCatalog;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.inbox.ConflictInbox;
import io.mergesynthesis.service.requeue.ConflictRequeue;
import jakarta.servlet.DispatcherType;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.EnumSet;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The web inbox on the application port, beside the JSON API: server-rendered pages, a stylesheet and one small
 * script under {@value #STATIC_PATH}, and the safety headers of all of them (see docs/adr/0020-web-inbox.md).
 */
public final class WebInbox {

    public static final String STATIC_PATH = "/static";

    private WebInbox() {
    }

    /**
     * Registers the pages, their static files and their headers; the JSON API under /v1/ is left as it is.
     *
     * @param settingsChanged told of each org whose model or budget the operator page changed
     */
    public static void install(Environment environment, ScopedTransactions transactions, ObjectMapper json,
                               ModelCatalog models, Consumer<UUID> settingsChanged, Clock clock) {
        Pages pages = new Pages(new Templates(), new WebSessions(transactions, clock), clock);
        environment.jersey().register(new SignInResource(pages, new TokenStore(transactions)));
        environment.jersey().register(new InboxResource(pages, transactions, new ConflictInbox(transactions, json),
                new ConflictRequeue(transactions), json));
        environment.jersey().register(new UsageResource(pages, transactions));
        environment.jersey().register(new OperatorResource(pages, transactions, models, settingsChanged));
        environment.servlets().addServlet("web-static",
                        new AssetServlet("/web/static", STATIC_PATH, null, StandardCharsets.UTF_8))
                .addMapping(STATIC_PATH + "/*");
        environment.servlets().addFilter("web-page-headers", new PageHeaders())
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    }
}
