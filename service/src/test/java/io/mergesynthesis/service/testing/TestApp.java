package io.mergesynthesis.service.testing;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/** The whole application on a fresh test database, and a plain HTTP client to talk to it. */
public final class TestApp {

    /** The key {@link #onStandIn} configures and {@link #standIn} expects. */
    public static final String STAND_IN_KEY = "test-key";

    private static final String DEFAULT_CONFIG = "test-config.yml";

    private final TestDatabase database;
    private final DropwizardAppExtension<MergeSynthesisConfiguration> app;
    private final HttpClient http = HttpClient.newHttpClient();

    private TestApp(TestDatabase database, DropwizardAppExtension<MergeSynthesisConfiguration> app) {
        this.database = database;
        this.app = app;
    }

    /** An application with its worker pool off (API tests), plus any further overrides. */
    public static TestApp apiOnly(ConfigOverride... overrides) {
        return create(Stream.concat(Stream.of(ConfigOverride.config("synthesis.enabled", "false")),
                Stream.of(overrides)).toArray(ConfigOverride[]::new));
    }

    /**
     * An application on the LLM path against {@code standIn} (OpenAI protocol, provider {@code standin}, primary
     * model {@code standin/small} at 1 and 5 USD per million tokens), with a quick poll and backoff; later
     * overrides win.
     */
    public static TestApp onStandIn(StandInProvider standIn, ConfigOverride... overrides) {
        return onStandIn(DEFAULT_CONFIG, standIn, STAND_IN_KEY, overrides);
    }

    /** The same, calling the stand-in with {@code apiKey}; a second override of the key was not seen to take. */
    public static TestApp onStandIn(StandInProvider standIn, String apiKey, ConfigOverride... overrides) {
        return onStandIn(DEFAULT_CONFIG, standIn, apiKey, overrides);
    }

    /**
     * As {@link #onStandIn(StandInProvider, ConfigOverride...)}, from another configuration file of the tests and
     * with another provider key (overrides are a set: two for one key would leave either in force).
     */
    public static TestApp onStandIn(String configResource, StandInProvider standIn, String apiKey,
                                    ConfigOverride... overrides) {
        return create(configResource, Stream.concat(Stream.of(
                ConfigOverride.config("synthesis.synthesizer", "llm"),
                ConfigOverride.config("synthesis.pollInterval", "200ms"),
                ConfigOverride.config("synthesis.baseBackoff", "50ms"),
                ConfigOverride.config("llm.primaryModel", "standin/small"),
                ConfigOverride.config("llm.providers.standin.type", "openai"),
                ConfigOverride.config("llm.providers.standin.baseUrl", standIn.openAiBaseUrl()),
                ConfigOverride.config("llm.providers.standin.apiKey", apiKey),
                ConfigOverride.config("llm.providers.standin.answerMode", "tool"),
                ConfigOverride.config("llm.providers.standin.requestTimeout", "5s"),
                ConfigOverride.config("llm.models.standin/small.inputPerMillionUsd", "1"),
                ConfigOverride.config("llm.models.standin/small.outputPerMillionUsd", "5")),
                Stream.of(overrides)).toArray(ConfigOverride[]::new));
    }

    /** A stand-in provider on a free loopback port that answers only {@link #STAND_IN_KEY}. */
    public static StandInProvider standIn(Behaviour behaviour) {
        try {
            return StandInProvider.start(behaviour.expectedKey(STAND_IN_KEY));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static TestApp create(ConfigOverride... overrides) {
        return create(DEFAULT_CONFIG, overrides);
    }

    /** The application from another configuration file of the tests' resources, plus overrides. */
    public static TestApp create(String configResource, ConfigOverride... overrides) {
        TestDatabase database = TestDatabase.fresh();
        List<ConfigOverride> all = new ArrayList<>();
        all.add(ConfigOverride.config("database.url", database.url()));
        all.addAll(List.of(overrides));
        return new TestApp(database, new DropwizardAppExtension<>(MergeSynthesisApplication.class,
                ResourceHelpers.resourceFilePath(configResource), all.toArray(ConfigOverride[]::new)));
    }

    /** The application on {@code database}, set up by the caller, with the default configuration and overrides. */
    public static TestApp on(TestDatabase database, ConfigOverride... overrides) {
        List<ConfigOverride> all = new ArrayList<>();
        all.add(ConfigOverride.config("database.url", database.url()));
        all.addAll(List.of(overrides));
        return new TestApp(database, new DropwizardAppExtension<>(MergeSynthesisApplication.class,
                ResourceHelpers.resourceFilePath(DEFAULT_CONFIG), all.toArray(ConfigOverride[]::new)));
    }

    /** Register this with {@code @RegisterExtension} so JUnit starts and stops the application. */
    public DropwizardAppExtension<MergeSynthesisConfiguration> extension() {
        return app;
    }

    public TestDatabase database() {
        return database;
    }

    public String token(Role role, UUID org) {
        return new TokenStore(database.transactions()).mint(role, org).secret();
    }

    public URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + app.getLocalPort() + pathAndQuery);
    }

    public URI adminUri(String path) {
        return URI.create("http://127.0.0.1:" + app.getAdminPort() + path);
    }

    public HttpResponse<String> get(String token, String pathAndQuery) {
        return send(request(token, pathAndQuery).GET().build());
    }

    public HttpResponse<String> post(String token, String pathAndQuery, String json) {
        return send(request(token, pathAndQuery)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    public HttpResponse<String> put(String token, String pathAndQuery, String json) {
        return send(request(token, pathAndQuery)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    public HttpResponse<String> getAdmin(String path) {
        return send(HttpRequest.newBuilder(adminUri(path)).GET().build());
    }

    public HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private HttpRequest.Builder request(String token, String pathAndQuery) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(pathAndQuery));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }
}
