package io.mergesynthesis.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.mergesynthesis.synthesis.MergeFinding;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A local provider that speaks both protocols ({@code POST /v1/messages} and {@code POST /v1/chat/completions})
 * and answers valid merges by itself (or, when told to, unsafe ones: {@link UnsafeMerge}), for tests and
 * benchmarks where no real provider may be called. It binds the loopback address only. Latency is served by a
 * scheduler rather than a sleeping thread, so a slow stand-in still answers hundreds of requests per second on a
 * small machine.
 */
public final class StandInProvider implements AutoCloseable {

    static final String STATS_PATH = "/stand-in/stats";
    static final String OUTAGE_PATH = "/stand-in/outage";
    static final long DEFAULT_MAX_TOKENS = 4096;

    private final ObjectMapper mapper = JsonMapper.builder().build();
    private final Behaviour behaviour;
    private final Stats stats = new Stats();
    private final RequestWindow window = new RequestWindow();
    private final PromptCache cache = new PromptCache();
    private final TokenLimits tokens;
    private final AtomicLong serial = new AtomicLong();
    private final int port;
    private HttpServer server; // guarded by this; replaced when a refusing outage ends
    private volatile Outage outage = Outage.NONE;
    private final Set<HttpExchange> hung = ConcurrentHashMap.newKeySet();
    private ScheduledFuture<?> outageEnd; // guarded by this
    private final ExecutorService handlers;
    private final ScheduledExecutorService delays;
    private final AnthropicDialect anthropic = new AnthropicDialect();
    private final OpenAiDialect openAi = new OpenAiDialect();
    private final BatchBook book;
    private final MessageBatches batches;
    private final OpenAiBatchApi openAiBatches;
    /** Every protocol the service can speak, by the path its requests are posted to. */
    private final Map<String, Dialect> dialects = Stream.of(new AnthropicDialect(), new OpenAiDialect())
            .collect(Collectors.toUnmodifiableMap(Dialect::path, dialect -> dialect));

    static {
        // The JDK server writes a response's headers and body separately; with Nagle's algorithm on, the body
        // then waits for the client's delayed ACK, about 40 ms per request. Read once, when the first server
        // starts; a value set by whoever runs us wins.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private StandInProvider(int port, Behaviour behaviour) throws IOException {
        this.behaviour = behaviour;
        this.tokens = new TokenLimits(behaviour);
        int threads = Math.max(4, Runtime.getRuntime().availableProcessors() * 2);
        this.handlers = Executors.newFixedThreadPool(threads, daemon("stand-in-handler"));
        this.delays = Executors.newScheduledThreadPool(2, daemon("stand-in-latency"));
        this.book = new BatchBook(Map.of(BatchBook.ANTHROPIC, answerer(anthropic), BatchBook.OPENAI, answerer(openAi)),
                stats, delays, behaviour);
        this.batches = new MessageBatches(mapper, book);
        this.openAiBatches = new OpenAiBatchApi(mapper, book);
        this.server = listen(port);
        this.port = server.getAddress().getPort();
    }

    /** How a request of a batch is answered in {@code dialect}: as its single call would be. */
    private BatchBook.Answerer answerer(Dialect dialect) {
        return new BatchBook.Answerer() {
            @Override
            public Reply answer(JsonNode body) {
                return respond(dialect, body, serial.incrementAndGet());
            }

            @Override
            public Reply error(int status, String type, String message) {
                return dialect.error(mapper, status, type, message, Map.of(), serial.incrementAndGet());
            }
        };
    }

    private HttpServer listen(int port) throws IOException {
        HttpServer listening = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        listening.setExecutor(handlers);
        listening.createContext("/", this::handle);
        listening.start();
        return listening;
    }

    /** Starts on a free loopback port. */
    public static StandInProvider start(Behaviour behaviour) throws IOException {
        return start(0, behaviour);
    }

    /** Starts on the given loopback port; 0 picks a free one. */
    public static StandInProvider start(int port, Behaviour behaviour) throws IOException {
        return new StandInProvider(port, behaviour);
    }

    public int port() {
        return port;
    }

    /** What to configure as an {@code anthropic} provider's {@code baseUrl}. */
    public String anthropicBaseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** What to configure as an {@code openai} provider's {@code baseUrl}. */
    public String openAiBaseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    public Behaviour behaviour() {
        return behaviour;
    }

    public Stats.Snapshot stats() {
        return stats.snapshot();
    }

    /**
     * Ends a batch of either protocol now: one in progress with each request not yet answered answered and billed
     * once; one cancelling with those requests canceled. False if there is none or it had ended.
     */
    public boolean endBatch(String id) {
        return book.end(id);
    }

    /**
     * Ends a batch now with every request not yet answered expired, none of those answered or billed; false if
     * none or ended.
     */
    public boolean expireBatch(String id) {
        return book.expire(id);
    }

    /**
     * Ends a batch as expired with its first {@code answered} requests answered and billed and the rest expired,
     * as a provider returns the finished part of a batch whose window closed; false if none or ended.
     */
    public boolean expireBatch(String id, int answered) {
        return (answered <= 0 || book.answerFirst(id, answered)) && book.expire(id);
    }

    /**
     * Answers and bills the next {@code n} requests of a batch in progress now, leaving it in progress (and the rest
     * to whatever ends it: {@link #endBatch}, {@link #expireBatch}, a cancel); false if none, cancelling or ended.
     */
    public boolean answerInBatch(String id, int n) {
        return book.answerFirst(id, n);
    }

    /** Asks a batch to cancel, as the protocol's cancel request does; false if there is none. */
    public boolean cancelBatch(String id) {
        return book.cancel(id) != null;
    }

    /** The ids of the batches of either protocol still in progress or cancelling, oldest first. */
    public List<String> batchesInProgress() {
        return book.inProgress();
    }

    /** How many times each custom_id has been billed in a batch, either protocol. */
    public Map<String, Long> billedByCustomId() {
        return stats.snapshot().billedByCustomId();
    }

    /**
     * The tokens billed for each custom_id in a batch, either protocol, summed over every time it was billed: the
     * input not read from or written to the cache, the output, cache reads and cache writes, as each answer
     * reported them.
     */
    public Map<String, Tokens> billedTokensByCustomId() {
        return stats.billedTokensByCustomId();
    }

    /** The outage in force. */
    public Outage outage() {
        return outage;
    }

    /**
     * Starts an outage of this kind now, or ends it with {@link Outage#NONE}; a refusing outage closes the port
     * and its end opens it again on the same port.
     *
     * @throws IOException when the port cannot be opened again (another process took it meanwhile)
     */
    public synchronized void outage(Outage kind) throws IOException {
        if (outageEnd != null) {
            outageEnd.cancel(false);
            outageEnd = null;
        }
        Outage before = outage;
        outage = kind;
        if (kind == Outage.REFUSE && before != Outage.REFUSE) {
            server.stop(0);
        } else if (before == Outage.REFUSE && kind != Outage.REFUSE) {
            server = listen(port);
        }
        if (before == Outage.HANG && kind != Outage.HANG) {
            // The callers have long given up on these; closing them frees the stand-in's side.
            hung.forEach(HttpExchange::close);
            hung.clear();
        }
    }

    /** An outage of this kind that ends by itself after {@code lasting}. */
    public synchronized void outage(Outage kind, Duration lasting) throws IOException {
        outage(kind);
        outageEnd = delays.schedule(() -> {
            try {
                outage(Outage.NONE);
            } catch (IOException e) {
                System.err.println("stand-in: could not reopen port " + port + " after the outage: " + e);
            }
        }, lasting.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized void close() {
        server.stop(0);
        hung.forEach(HttpExchange::close);
        delays.shutdownNow();
        handlers.shutdownNow();
    }

    private void handle(HttpExchange exchange) {
        try {
            String path = exchange.getRequestURI().getPath();
            if (path.equals(STATS_PATH)) {
                // Asking for the counts is not a provider request: it is neither counted nor delayed.
                send(exchange, new Reply(200, Map.of(), mapper.writeValueAsString(stats.snapshot())), false);
                return;
            }
            if (path.equals(OUTAGE_PATH)) {
                send(exchange, outageSwitch(exchange), false);
                return;
            }
            stats.request(path);
            Outage now = outage;
            if (now == Outage.HANG) {
                hung.add(exchange);
                return;
            }
            if (now == Outage.STATUS_503) {
                send(exchange, new Reply(503, Map.of(), "{\"error\":{\"type\":\"api_error\","
                        + "\"message\":\"stand-in outage: service unavailable\"}}"));
                return;
            }
            if (MessageBatches.serves(path) || OpenAiBatchApi.serves(path)) {
                Reply reply = batchReply(exchange, path);
                String method = exchange.getRequestMethod();
                boolean create = MessageBatches.isCreate(method, path) || OpenAiBatchApi.isCreate(method, path);
                boolean retrieve = MessageBatches.isRetrieve(method, path)
                        || OpenAiBatchApi.isRetrieve(method, path);
                Duration slow = create ? behaviour.batchCreateDelay()
                        : retrieve ? behaviour.batchRetrieveDelay() : Duration.ZERO;
                if ((create || retrieve) && reply.status() == 200 && !slow.isZero()) {
                    // The batch is made; only its answer waits.
                    delays.schedule(() -> send(exchange, reply), slow.toNanos(), TimeUnit.NANOSECONDS);
                } else {
                    send(exchange, reply);
                }
                return;
            }
            Pending pending = reply(exchange, path);
            Duration latency = behaviour.latency();
            if (latency.isZero()) {
                send(exchange, pending.end());
            } else {
                delays.schedule(() -> send(exchange, pending.end()), latency.toNanos(), TimeUnit.NANOSECONDS);
            }
        } catch (RuntimeException | IOException e) {
            send(exchange, new Reply(500, Map.of(), "{\"error\":{\"type\":\"stand_in_bug\",\"message\":\""
                    + e.getClass().getSimpleName() + "\"}}"));
        }
    }

    private Reply batchReply(HttpExchange exchange, String path) throws IOException {
        boolean isAnthropic = MessageBatches.serves(path);
        Dialect dialect = isAnthropic ? anthropic : openAi;
        byte[] body = exchange.getRequestBody().readAllBytes();
        String expected = behaviour.expectedKey();
        if (expected != null && !expected.equals(dialect.key(exchange.getRequestHeaders()))) {
            return dialect.error(mapper, 401, "authentication_error",
                    isAnthropic ? "invalid x-api-key" : "invalid bearer token", Map.of(), serial.incrementAndGet());
        }
        if (behaviour.takeBatchRefusal()) {
            return dialect.error(mapper, 429, "rate_limit_error", "stand-in: batch calls refused for now",
                    Map.of("retry-after", "7"), serial.incrementAndGet());
        }
        if (isAnthropic) {
            return batches.handle(exchange.getRequestMethod(), path, queryOf(exchange), body, anthropicBaseUrl());
        }
        return openAiBatches.handle(exchange.getRequestMethod(), path, queryOf(exchange),
                exchange.getRequestHeaders().getFirst("content-type"), body);
    }

    /**
     * {@code GET /stand-in/outage} says which outage is in force; {@code POST /stand-in/outage?kind=hang&for=30s}
     * starts one ({@code none}, {@code status-503}, {@code hang}, {@code refuse}); {@code for} ends it by itself
     * and is required for {@code refuse}, which closes the port this switch is served on.
     */
    private Reply outageSwitch(HttpExchange exchange) throws IOException {
        if (exchange.getRequestMethod().equals("POST")) {
            Map<String, String> query = queryOf(exchange);
            try {
                Outage kind = Outage.fromLabel(query.getOrDefault("kind", ""));
                String lasting = query.get("for");
                if (kind == Outage.REFUSE && lasting == null) {
                    throw new IllegalArgumentException("kind=refuse closes this port too: say for how long, e.g. for=30s");
                }
                if (lasting == null) {
                    outage(kind);
                } else {
                    outage(kind, DurationFlag.parse(lasting));
                }
            } catch (IllegalArgumentException e) {
                return new Reply(400, Map.of(), mapper.writeValueAsString(Map.of("error", e.getMessage())));
            }
        }
        return new Reply(200, Map.of(), mapper.writeValueAsString(Map.of("outage", outage.label())));
    }

    private static Map<String, String> queryOf(HttpExchange exchange) {
        Map<String, String> query = new java.util.HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    query.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return query;
    }

    /**
     * An answer about to be sent, and the token charge it settles when it is: the output a request used is known,
     * and what it held beyond that is given back, only once it ends.
     */
    private record Pending(Reply reply, TokenLimits.Charge charge, TokenLimits limits, Stats stats,
                           ObjectMapper mapper) {

        static Pending of(Reply reply) {
            return new Pending(reply, null, null, null, null);
        }

        /** A request the token limits let in: counted with what its answer writes, known already. */
        static Pending letIn(Reply reply, TokenLimits.Charge charge, TokenLimits limits, Stats stats,
                             ObjectMapper mapper) {
            Pending pending = new Pending(reply, charge, limits, stats, mapper);
            if (charge != null) {
                stats.letIn(charge.input(), pending.outputTokens());
            }
            return pending;
        }

        /** Settles the charge: the answer goes now. */
        Reply end() {
            if (charge != null) {
                long written = outputTokens();
                limits.settle(charge, written);
                stats.tokens(charge.input(), written);
            }
            return reply;
        }

        /** What the answer reports as written, in either protocol; 0 for an answer with none. */
        private long outputTokens() {
            try {
                JsonNode usage = mapper.readTree(reply.body()).path("usage");
                return usage.has("output_tokens") ? usage.path("output_tokens").asLong(0)
                        : usage.path("completion_tokens").asLong(0);
            } catch (IOException e) {
                return 0;
            }
        }
    }

    private Pending reply(HttpExchange exchange, String path) throws IOException {
        Dialect dialect = dialects.get(path);
        long n = serial.incrementAndGet();
        if (dialect == null || !exchange.getRequestMethod().equals("POST")) {
            return Pending.of(new Reply(404, Map.of(),
                    "{\"error\":{\"type\":\"not_found_error\",\"message\":\"no such endpoint\"}}"));
        }
        JsonNode request;
        try {
            request = mapper.readTree(exchange.getRequestBody().readAllBytes());
        } catch (IOException e) {
            return Pending.of(dialect.error(mapper, 400, "invalid_request_error", "the body is not JSON", Map.of(), n));
        }
        stats.model(request.path("model").asText(""));

        String expected = behaviour.expectedKey();
        if (expected != null && !expected.equals(dialect.key(exchange.getRequestHeaders()))) {
            return Pending.of(dialect.error(mapper, 401, "authentication_error", "invalid x-api-key", Map.of(), n));
        }
        int limit = behaviour.rateLimitPerSecond();
        Admission admission = limit > 0 ? window.admit(limit, behaviour.ratePeriod()) : null;
        Map<String, String> stated = admission != null && behaviour.statesRateLimit()
                ? dialect.rateLimitHeaders(admission) : Map.of();
        if (admission != null && !admission.admitted()) {
            long seconds = Math.max(1, (long) Math.ceil(
                    Duration.between(Instant.now(), admission.resetsAt()).toMillis() / 1000.0));
            Map<String, String> headers = new java.util.HashMap<>(stated);
            headers.put("retry-after", Long.toString(seconds));
            headers.put("anthropic-ratelimit-requests-remaining", "0");
            headers.put("anthropic-ratelimit-requests-reset", admission.resetsAt().toString());
            return Pending.of(dialect.error(mapper, 429, "rate_limit_error",
                    "stand-in rate limit of " + limit + " per " + behaviour.ratePeriod(), headers, n));
        }
        TokenLimits.Charge charge = null;
        if (tokens.enforced()) {
            String model = request.path("model").asText("");
            charge = new TokenLimits.Charge(model, cache.chargedInput(dialect, request, behaviour), maxTokens(request));
            Optional<TokenLimits.Refusal> refused = tokens.admit(charge);
            if (behaviour.statesRateLimit()) {
                // As the providers do, the buckets are stated as they stood when the request was counted.
                stated = new java.util.HashMap<>(stated);
                TokenState state = tokens.state(model);
                stated.putAll(dialect.tokenHeaders(behaviour.roundsRemaining() && dialect instanceof AnthropicDialect
                        ? state.roundedToThousands() : state));
            }
            if (refused.isPresent()) {
                Map<String, String> headers = new java.util.HashMap<>(stated);
                headers.put("retry-after", Long.toString(Math.max(1,
                        (long) Math.ceil(refused.get().after().toMillis() / 1000.0))));
                return Pending.of(dialect.error(mapper, 429, "rate_limit_error", "stand-in limit of "
                        + refused.get().limit() + " " + refused.get().kind() + " per " + behaviour.tokenPeriod()
                        + " for model '" + model + "'", headers, n));
            }
        }
        var scripted = behaviour.takeScripted();
        Reply reply;
        if (scripted.isPresent() && scripted.get().isRaw()) {
            // Sent exactly as scripted: a test that scripts headers wants those alone.
            reply = new Reply(scripted.get().status(), scripted.get().headers(), scripted.get().body());
            return Pending.letIn(reply, charge, tokens, stats, mapper);
        }
        if (scripted.isPresent()) {
            reply = answered(dialect, request, scripted.get().answerText(), n).withHeaders(stated);
        } else {
            reply = respond(dialect, request, n).withHeaders(stated);
        }
        return Pending.letIn(reply, charge, tokens, stats, mapper);
    }

    /**
     * The most a request may write, which the output limits hold while it runs: {@code max_tokens}, or OpenAI's
     * {@code max_completion_tokens}; 4,096 when it names neither.
     */
    static long maxTokens(JsonNode request) {
        JsonNode max = request.has("max_tokens") ? request.get("max_tokens") : request.path("max_completion_tokens");
        return max.canConvertToLong() && max.asLong() > 0 ? max.asLong() : DEFAULT_MAX_TOKENS;
    }

    /** The stand-in's own answer, or the failure it was told to give, to a request let through. */
    private Reply respond(Dialect dialect, JsonNode request, long n) {
        var failure = behaviour.takeNextFailure();
        if (failure.isEmpty() && behaviour.failureRate() > 0
                && ThreadLocalRandom.current().nextDouble() < behaviour.failureRate()) {
            failure = java.util.Optional.of(behaviour.failureKind());
        }
        return failure.isPresent() ? fail(dialect, request, failure.get(), n) : answer(dialect, request, null, n);
    }

    private Reply fail(Dialect dialect, JsonNode request, Failure failure, long n) {
        return switch (failure) {
            case SERVER_ERROR -> dialect.error(mapper, 500, "api_error", "stand-in server error", Map.of(), n);
            case OVERLOADED -> dialect.error(mapper, 529, "overloaded_error", "Overloaded", Map.of(), n);
            case RATE_LIMITED -> dialect.error(mapper, 429, "rate_limit_error", "stand-in rate limit",
                    Map.of("retry-after", "1"), n);
            case SPEND_LIMIT -> dialect.error(mapper, 429, "insufficient_quota",
                    "You exceeded your current quota, please check your plan and billing details.", Map.of(), n);
            case NOT_JSON, UNKNOWN_POLICY, MISSING_FIELD -> answer(dialect, request, failure, n);
        };
    }

    private Reply answer(Dialect dialect, JsonNode request, Failure spoil, long n) {
        List<String> messages = dialect.userMessages(request);
        boolean toldWhy = messages.size() > 1 && carriesFindings(messages.get(messages.size() - 1));
        if (toldWhy) {
            stats.repair();
        }
        ObjectNode answer;
        try {
            JsonNode conflict = messages.isEmpty() ? null : mapper.readTree(messages.get(0));
            if (conflict == null || !conflict.isObject()) {
                throw new IllegalArgumentException("no conflict");
            }
            answer = StandInAnswer.forConflict(mapper, conflict, behaviour.answerConfidence(request.path("model").asText()));
            UnsafeMerge unsafe = behaviour.unsafe();
            if (unsafe != null && !(toldWhy && behaviour.rightWhenToldWhy())) {
                StandInAnswer.spoil(mapper, answer, conflict, unsafe);
            }
        } catch (IOException | IllegalArgumentException e) {
            return dialect.error(mapper, 400, "invalid_request_error",
                    "the stand-in reads a conflict as JSON from the first user message", Map.of(), n);
        }
        if (spoil == Failure.NOT_JSON) {
            return answered(dialect, request, "I would keep the winner and remove the others.", n);
        }
        if (spoil == Failure.MISSING_FIELD) {
            answer.remove("rationale");
        }
        if (spoil == Failure.UNKNOWN_POLICY) {
            ((ObjectNode) answer.get("merged_rule")).put("based_on_policy_id", "pol-not-in-this-conflict");
        }
        return answered(dialect, request, answer.toString(), n);
    }

    /** The answer with its usage; cut at the request's budget when it is longer and the behaviour says so. */
    private Reply answered(Dialect dialect, JsonNode request, String text, long n) {
        Tokens usage = cache.usage(dialect, request, text, behaviour);
        long budget = dialect.maxTokens(request);
        if (behaviour.cutsAtMaxTokens() && budget > 0 && usage.output() > budget) {
            String unfinished = text.substring(0, (int) (text.length() * budget / usage.output()));
            return dialect.answer(mapper, request, unfinished,
                    new Tokens(usage.input(), budget, usage.cacheRead(), usage.cacheWrite()), true, n);
        }
        return dialect.answer(mapper, request, text, usage, false, n);
    }

    /** A repair request names at least one of the merge check's finding codes. */
    private static boolean carriesFindings(String message) {
        for (MergeFinding.Code code : MergeFinding.Code.values()) {
            if (message.contains(code.wireName())) {
                return true;
            }
        }
        return false;
    }

    private void send(HttpExchange exchange, Reply reply) {
        send(exchange, reply, true);
    }

    private void send(HttpExchange exchange, Reply reply, boolean counted) {
        if (counted) {
            stats.status(reply.status());
        }
        try (exchange) {
            byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("content-type", "application/json");
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
            exchange.sendResponseHeaders(reply.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (IOException e) {
            // The client went away (a timeout, an interrupted worker): nothing to answer to.
        }
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Runs the stand-in until killed. Flags: {@code --port 9090}, {@code --latency 50ms}, {@code --rate-limit 20}
     * (per {@code --rate-period}, a second by default; 0 = none), {@code --failure-rate 0.1}, {@code --failure-kind server_error},
     * {@code --confidence 0.9}, {@code --key test-key} (401 for any other), {@code --states-rate-limit false}
     * (rate-limit headers on 429s only), {@code --unsafe flip_effect} (every answer unsafe that way, see
     * {@link UnsafeMerge}), {@code --right-when-told-why true} (a repair request carrying the merge check's
     * findings gets the correct merge), {@code --count-tokens true} (usage counted from each request, with a
     * prompt cache), {@code --cache-minimum-tokens 1024}, {@code --cut-at-max-tokens true} (longer answers stop at
     * the request's budget), {@code --token-limits 30000,8000,0} (input, output and combined tokens per model per
     * {@code --token-period}, a minute by default; 0 for none), {@code --token-start 0.1,0.1,1} (how full each
     * bucket starts), {@code --round-remaining true} (Anthropic's rounding of what is left), {@code --tier 1}
     * (Anthropic's first-tier limits for Sonnet).
     */
    /**
     * Every flag {@link #main} takes, with what it does: the one list, so that a command that starts the stand-in
     * can offer them all by forwarding them instead of keeping a copy of its own.
     */
    public static final Map<String, String> FLAGS = flags();

    private static Map<String, String> flags() {
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put("--port", "port to listen on (default 9090)");
        flags.put("--latency", "how long each answer takes, e.g. 50ms or 2s");
        flags.put("--batch-delay", "how long a batch (either protocol) stays in progress before it ends, e.g. 5m");
        flags.put("--batch-cancel-delay", "how long a batch asked to cancel stays cancelling before it ends, e.g. 1m");
        flags.put("--batch-create-delay", "how long the answer to a batch's create is held back (the batch is made "
                + "at once), e.g. 30s");
        flags.put("--batch-error-every", "every n-th request of each batch is errored, not billed (0: none)");
        flags.put("--batch-error-rate", "share of batch requests, at random, errored and not billed, 0 to 1");
        flags.put("--batch-result-seed", "a batch's results are written shuffled with this seed");
        flags.put("--rate-limit", "requests per --rate-period answered before 429s (0: no limit)");
        flags.put("--rate-period", "the window of --rate-limit (default a second)");
        flags.put("--states-rate-limit", "false: rate-limit headers on 429s only (default true: on every answer)");
        flags.put("--failure-rate", "share of requests answered with a failure, 0 to 1");
        flags.put("--failure-kind", "which failure: server_error, overloaded, not_json, unknown_policy, missing_field");
        flags.put("--confidence", "the confidence every answer carries, 0 to 1 (below llm.escalateBelow escalates)");
        flags.put("--key", "the only API key accepted; any other gets 401");
        flags.put("--unsafe", "every merge unsafe this way, which the merge check refuses: flip_effect, widen_target, "
                + "foreign_owner, based_on_loser, keep_contradicting_loser, remove_stricter_loser");
        flags.put("--right-when-told-why", "true: a repair request carrying the check's findings gets the correct merge");
        flags.put("--count-tokens", "true: usage counted from each request and answer, with a prompt cache");
        flags.put("--cache-minimum-tokens", "the shortest prefix the prompt cache keeps, in tokens");
        flags.put("--cut-at-max-tokens", "true: longer answers stop at the request's max_tokens");
        flags.put("--token-limits", "input,output,combined tokens per model per --token-period (0 for none)");
        flags.put("--token-period", "the period of --token-limits (default a minute)");
        flags.put("--token-start", "input,output,combined: how full each bucket starts, 0 to 1 (default 1,1,1)");
        flags.put("--round-remaining", "true: Anthropic's token headers round what is left to the nearest thousand");
        flags.put("--tier", "Anthropic's limits of a usage tier for Sonnet, 1 to 4, a minute each "
                + "(tier 1: 50 requests, 30000 input and 8000 output tokens)");
        return java.util.Collections.unmodifiableMap(flags);
    }

    /** What the flags ask for: the port and the behaviour. */
    public record Options(int port, Behaviour behaviour) {
    }

    /** Reads {@link #FLAGS}; a flag not among them, or a value it cannot take, is refused naming it. */
    public static Options parse(String[] args) {
        int port = 9090;
        Behaviour behaviour = new Behaviour();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = args[++i];
            switch (flag) {
                case "--port" -> port = Integer.parseInt(value);
                case "--latency" -> behaviour.latency(DurationFlag.parse(value));
                case "--batch-delay" -> behaviour.batchDelay(DurationFlag.parse(value));
                case "--batch-cancel-delay" -> behaviour.batchCancelDelay(DurationFlag.parse(value));
                case "--batch-create-delay" -> behaviour.batchCreateDelay(DurationFlag.parse(value));
                case "--batch-error-every" -> behaviour.batchErrorEvery(Integer.parseInt(value));
                case "--batch-error-rate" -> behaviour.batchErrorRate(Double.parseDouble(value));
                case "--batch-result-seed" -> behaviour.batchResultSeed(Long.parseLong(value));
                case "--rate-limit" -> behaviour.rateLimitPerSecond(Integer.parseInt(value));
                case "--failure-rate" -> behaviour.failureRate(Double.parseDouble(value));
                case "--failure-kind" -> behaviour.failureKind(Failure.valueOf(value.toUpperCase(java.util.Locale.ROOT)));
                case "--confidence" -> behaviour.confidence(Double.parseDouble(value));
                case "--key" -> behaviour.expectedKey(value);
                case "--states-rate-limit" -> behaviour.statesRateLimit(Boolean.parseBoolean(value));
                case "--unsafe" -> behaviour.unsafe(UnsafeMerge.fromLabel(value));
                case "--right-when-told-why" -> behaviour.rightWhenToldWhy(Boolean.parseBoolean(value));
                case "--count-tokens" -> behaviour.countsTokens(Boolean.parseBoolean(value));
                case "--cache-minimum-tokens" -> behaviour.cacheMinimumTokens(Long.parseLong(value));
                case "--cut-at-max-tokens" -> behaviour.cutAtMaxTokens(Boolean.parseBoolean(value));
                case "--token-period" -> behaviour.tokenPeriod(DurationFlag.parse(value));
                case "--rate-period" -> behaviour.ratePeriod(DurationFlag.parse(value));
                case "--round-remaining" -> behaviour.roundsRemaining(Boolean.parseBoolean(value));
                case "--tier" -> behaviour.tier(Integer.parseInt(value));
                case "--token-start" -> {
                    double[] levels = triple(flag, value);
                    behaviour.tokenStartLevels(levels[0], levels[1], levels[2]);
                }
                case "--token-limits" -> {
                    String[] limits = value.split(",", -1);
                    if (limits.length != 3) {
                        throw new IllegalArgumentException("--token-limits takes input,output,combined (0 for none), "
                                + "not " + value);
                    }
                    behaviour.tokenLimits(Long.parseLong(limits[0].trim()), Long.parseLong(limits[1].trim()),
                            Long.parseLong(limits[2].trim()));
                }
                default -> throw new IllegalArgumentException("unknown flag " + flag
                        + " (known: " + String.join(" ", FLAGS.keySet()) + "; outages are "
                        + "switched at runtime: POST "
                        + OUTAGE_PATH + "?kind=status-503&for=30s)");
            }
        }
        return new Options(port, behaviour);
    }

    /** Three shares from 0 to 1, comma-separated: input, output and combined. */
    private static double[] triple(String flag, String value) {
        String[] parts = value.split(",", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException(flag + " takes input,output,combined, not " + value);
        }
        double[] shares = new double[3];
        for (int i = 0; i < 3; i++) {
            shares[i] = Double.parseDouble(parts[i].trim());
        }
        return shares;
    }

    public static void main(String[] args) throws Exception {
        Options options = parse(args);
        int port = options.port();
        Behaviour behaviour = options.behaviour();
        StandInProvider standIn = start(port, behaviour);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            standIn.close();
            stopped.countDown();
        }));
        System.out.println("stand-in provider listening on 127.0.0.1:" + standIn.port() + " (anthropic baseUrl "
                + standIn.anthropicBaseUrl() + ", openai baseUrl " + standIn.openAiBaseUrl() + ", stats "
                + standIn.anthropicBaseUrl() + STATS_PATH + ", outages " + standIn.anthropicBaseUrl() + OUTAGE_PATH + ")");
        stopped.await();
    }
}
