package io.mergesynthesis.llm;

import io.mergesynthesis.llm.ProviderReply.ProviderError;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.InvalidAnswerException;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ProviderCall.Disposition;
import io.mergesynthesis.synthesis.SuggestedMerge.ProducedBy;
import io.mergesynthesis.synthesis.SynthesisDeferred;
import io.mergesynthesis.synthesis.SynthesisException;
import io.mergesynthesis.synthesis.Ticker;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes one call to one configured provider and turns whatever happens into a valid answer or one of the
 * seam's exceptions. Exactly one HTTP request per call: retrying is the worker pool's business, which sees
 * the provider's pause through {@link SynthesisDeferred} instead of a thread silently sleeping in here.
 */
final class ProviderClient {

    private static final Logger LOG = LoggerFactory.getLogger(ProviderClient.class);

    /** The pause after a 429 or overload that names no wait of its own. */
    static final Duration THROTTLE_FALLBACK = Duration.ofSeconds(1);
    /** A provider asking for more than this is more likely misreporting than meaning it. */
    static final Duration THROTTLE_CAP = Duration.ofSeconds(60);
    /** A key is only set by a restart: a conflict that met none is not looked at again for a while. */
    static final Duration MISSING_KEY_RETRY = Duration.ofSeconds(60);
    /** A call that found no free slot comes back soon: slots free up at the pace of calls, seconds at most. */
    static final Duration AT_LIMIT_RETRY = Duration.ofMillis(250);

    private final String name;
    private final ProviderSettings settings;
    private final WireProtocol protocol;
    private final ProviderGate gate;
    private final HttpClient http;
    private final Prompt prompt;
    private final LlmMetrics metrics;
    private final Clock clock;
    private final Ticker ticker;
    private final Duration slotWait;
    private final AnswerBudget budget;
    private final ProviderCallSpans spans;
    private final HttpResponse.BodyHandler<CappedBody.Read> bodyHandler;

    /** A client whose calls are not traced. */
    ProviderClient(String name, ProviderSettings settings, ProviderGate gate, Prompt prompt, LlmMetrics metrics,
                   Clock clock, Ticker ticker, Duration slotWait) {
        this(name, settings, gate, prompt, metrics, clock, ticker, slotWait, ProviderCallSpans.off(settings.getType()));
    }

    ProviderClient(String name, ProviderSettings settings, ProviderGate gate, Prompt prompt, LlmMetrics metrics,
                   Clock clock, Ticker ticker, Duration slotWait, ProviderCallSpans spans) {
        this.name = name;
        this.spans = spans;
        this.settings = settings;
        this.protocol = WireProtocol.of(settings.getType());
        this.gate = gate;
        this.prompt = prompt;
        this.metrics = metrics;
        this.clock = clock;
        this.ticker = ticker;
        this.slotWait = slotWait;
        this.budget = new AnswerBudget(settings.getMaxOutputTokens(), settings.getMaxAnswerBytes());
        this.bodyHandler = CappedBody.handler(CappedBody.limitFor(settings.getMaxAnswerBytes()));
        this.http = HttpClient.newBuilder()
                .connectTimeout(settings.getConnectTimeout())
                // HTTP/2 needs TLS in practice; a plain-http base URL is a local server that speaks HTTP/1.1.
                .version(settings.trimmedBaseUrl().startsWith("https://") ? HttpClient.Version.HTTP_2
                        : HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /**
     * Asks {@code model} for a merge of {@code conflict}. Every answered call is appended to {@code calls};
     * exceptions carry a copy of the list as it stands.
     *
     * @param repair null for a first answer; otherwise the refused answer and the check's findings to repair
     */
    PassAnswer ask(ProviderCall.Pass pass, String model, ModelPrice price, ConflictSnapshot conflict,
                   PolicyRule winner, List<ProviderCall> calls, Repair repair)
            throws SynthesisException, InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before calling provider '" + name + "'");
        }
        if (!settings.hasKey()) {
            throw new SynthesisDeferred(SynthesisDeferred.Cause.MISSING_KEY, name, MISSING_KEY_RETRY,
                    "provider '" + name + "' has no API key on this replica: set " + settings.keyVariable()
                            + " and restart; no call made", calls);
        }
        deferIfPaused(model, calls);
        ProviderCircuit.Ticket ticket = admit(calls);
        if (ticket.probe()) {
            ticket = probe(ticket, calls);
        }
        try {
            long deadline = ticker.nanos() + slotWait.toNanos();
            if (!gate.limit().acquire(slotWait)) {
                throw new SynthesisDeferred(SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT, name, AT_LIMIT_RETRY,
                        "provider '" + name + "' already has " + gate.limit().limit()
                                + " calls in flight from this replica", calls);
            }
            try {
                ModelLimits limits = gate.model(model);
                int rules = conflict.rules().size();
                // Chosen again each time the call looks at its turn: one that waited through the model's first
                // answer asks what an answered model's calls ask, not the budget of a call sent before it.
                IntSupplier firstBudget = () -> budget.first(model, rules, limits.heardFrom());
                RequestPlan plan = new RequestPlan(firstBudget.getAsInt(), price.cacheFromTokens());
                Duration wait = Duration.ofNanos(Math.max(0, deadline - ticker.nanos()));
                for (boolean lastTry = false; ; lastTry = true) {
                    // Built before the turn: what the call is charged against the token limits depends on it.
                    HttpRequest request = protocol.request(settings, model, prompt, conflict, repair, plan);
                    ModelLimits.Turn turn = awaitPace(model, limits, request,
                            lastTry ? plan::maxTokens : firstBudget, wait, calls);
                    if (turn.maxTokens() != plan.maxTokens()) {
                        plan = new RequestPlan(turn.maxTokens(), plan.cacheFromTokens());
                        request = protocol.request(settings, model, prompt, conflict, repair, plan);
                    }
                    try {
                        // Again: a call that waited for its slot or its turn may have waited into a pause another
                        // call started.
                        deferIfPaused(model, calls);
                    } catch (SynthesisDeferred paused) {
                        limits.unanswered(turn);
                        throw paused;
                    }
                    Optional<PassAnswer> answer = send(pass, model, price, conflict, winner, calls, ticket, limits,
                            turn, request, plan, lastTry);
                    if (answer.isPresent()) {
                        return answer.get();
                    }
                    // Cut at its budget: once more in the same attempt, with more and a charge of its own; the cut
                    // call is among the calls.
                    plan = new RequestPlan(budget.retry(plan.maxTokens()), plan.cacheFromTokens());
                    wait = slotWait;
                }
            } finally {
                gate.limit().release();
            }
        } finally {
            // A probe that learned nothing (no slot, a pause, an interrupted worker) must not keep the circuit
            // waiting for its answer; a probe that was answered or failed has already moved the circuit on.
            gate.circuit().abandoned(ticket);
        }
    }

    private ProviderCircuit.Ticket admit(List<ProviderCall> calls) throws SynthesisDeferred {
        try {
            return gate.circuit().admit();
        } catch (ProviderCircuit.HeldBack held) {
            throw new SynthesisDeferred(SynthesisDeferred.Cause.PROVIDER_OUTAGE, name, held.retryAfter(),
                    held.getMessage() + "; no call made", calls);
        }
    }

    /**
     * Asks a provider found down for its model list, which costs nothing, instead of risking the conflict's
     * attempt on it. An answer of any kind but a broken server's closes the circuit, and the conflict's call is let
     * out next; otherwise the conflict is handed back uncounted until the next probe.
     *
     * @return the ticket of the conflict's own call
     */
    private ProviderCircuit.Ticket probe(ProviderCircuit.Ticket probe, List<ProviderCall> calls)
            throws SynthesisDeferred, InterruptedException {
        String what;
        try {
            HttpResponse<Void> response = http.send(protocol.probe(settings), HttpResponse.BodyHandlers.discarding());
            int status = response.statusCode();
            if (status < 500 || status == 529) {
                metrics.probe(name, true);
                gate.circuit().answered(probe);
                return admit(calls);
            }
            what = "HTTP " + status + " to the probe";
        } catch (HttpTimeoutException e) {
            what = "no answer to the probe within " + settings.getRequestTimeout().toMillis() + " ms";
        } catch (IOException e) {
            what = "could not be reached by the probe (" + e.getClass().getSimpleName() + ")";
        } catch (InterruptedException | RuntimeException e) {
            // The probe learned nothing: the next call probes again.
            gate.circuit().abandoned(probe);
            throw e;
        }
        metrics.probe(name, false);
        Duration wait = gate.circuit().probeFailed(probe, what);
        throw new SynthesisDeferred(SynthesisDeferred.Cause.PROVIDER_OUTAGE, name, wait,
                "provider '" + name + "' is still down: " + what + "; no call made for this conflict", calls);
    }

    /**
     * A failure an outage would produce: the circuit decides whether it counts against the conflict or hands
     * the conflict back uncounted.
     */
    private SynthesisException outageLike(ProviderCircuit.Ticket ticket, ConflictSnapshot conflict, String message,
                                          String summary, Throwable cause, List<ProviderCall> calls) {
        ProviderCircuit.Verdict verdict = gate.circuit().failed(ticket, conflict.conflictId(), message);
        if (verdict.counts()) {
            return new SynthesisException(message, summary, cause, calls);
        }
        String why = verdict.deferral() == SynthesisDeferred.Cause.PROVIDER_OUTAGE
                ? "the provider is down for every conflict" : "tried once more before it counts";
        return new SynthesisDeferred(verdict.deferral(), name, verdict.retryAfter(), message + " (" + why + ")",
                summary + " (" + why + ")", calls);
    }

    /**
     * Waits for this replica's next turn to start a call to {@code model} within every limit the provider states
     * for it, for what is left of the slot wait. A longer wait hands the conflict back at once, uncounted, like a
     * call that found no slot: the worker is better used on a conflict of another provider than asleep here.
     */
    private ModelLimits.Turn awaitPace(String model, ModelLimits limits, HttpRequest request, IntSupplier maxTokens,
                                       Duration wait, List<ProviderCall> calls)
            throws SynthesisDeferred, InterruptedException {
        long requestBytes = request.bodyPublisher().map(HttpRequest.BodyPublisher::contentLength).orElse(0L);
        long bytes = Math.max(0, requestBytes);
        Optional<ModelLimits.Turn> turn = limits.awaitStart(wait,
                () -> limits.charges(maxTokens.getAsInt(), bytes));
        if (turn.isPresent()) {
            return turn.get();
        }
        Duration next = limits.untilNextStart();
        throw new SynthesisDeferred(SynthesisDeferred.Cause.AT_CONCURRENCY_LIMIT, name, handBackBefore(next),
                "provider '" + name + "' model '" + model + "' is paced to " + String.format(Locale.ROOT, "%.1f",
                        limits.perSecond(RateLimitHeaders.Kind.REQUESTS)) + " requests/s from this replica by the "
                        + "limits it states; next turn in " + next.toMillis() + " ms", calls);
    }

    /**
     * How long a conflict handed back for want of a turn is left before it is claimed again: until half the slot
     * wait before the turn, so that the worker that claims it is already waiting when the turn comes and the call
     * goes as the limit allows, not a claim's round trips after it; never sooner than {@link #AT_LIMIT_RETRY}.
     */
    Duration handBackBefore(Duration nextTurn) {
        Duration early = nextTurn.minus(slotWait.dividedBy(2));
        return early.compareTo(AT_LIMIT_RETRY) > 0 ? early : AT_LIMIT_RETRY;
    }

    /** The provider, or the model, asked to wait: no call is made meanwhile. */
    private void deferIfPaused(String model, List<ProviderCall> calls) throws SynthesisDeferred {
        var pause = gate.activePause();
        if (pause.isPresent()) {
            Duration left = gate.remaining(pause.get());
            throw new SynthesisDeferred(pause.get().cause(), name, left,
                    "provider '" + name + "' is paused (" + pause.get().cause() + ") for another " + left.toMillis()
                            + " ms; no call made", calls);
        }
        Optional<Duration> modelPause = gate.model(model).paused();
        if (modelPause.isPresent()) {
            throw new SynthesisDeferred(SynthesisDeferred.Cause.RATE_LIMITED, name, modelPause.get(),
                    "provider '" + name + "' model '" + model + "' is paused (RATE_LIMITED) for another "
                            + modelPause.get().toMillis() + " ms; no call made", calls);
        }
    }

    /** One call; empty when its answer was cut at its budget and the caller may ask once more. */
    private Optional<PassAnswer> send(ProviderCall.Pass pass, String model, ModelPrice price, ConflictSnapshot conflict,
                            PolicyRule winner, List<ProviderCall> calls, ProviderCircuit.Ticket ticket,
                            ModelLimits limits, ModelLimits.Turn turn, HttpRequest request, RequestPlan plan,
                            boolean lastTry)
            throws SynthesisException, InterruptedException {
        ProviderCallSpan span = spans.start(pass, model, plan.maxTokens());
        Instant startedAt = clock.instant();
        long started = ticker.nanos();
        HttpResponse<CappedBody.Read> response;
        try {
            response = exchange(request, model, conflict, calls, started, ticket, span);
        } catch (SynthesisException | InterruptedException | RuntimeException e) {
            limits.unanswered(turn);
            throw e;
        }
        Duration latency = Duration.ofNanos(ticker.nanos() - started);

        ProviderReply reply = read(response);
        if (reply.usageRefused() != null) {
            long requestBytes = request.bodyPublisher().map(HttpRequest.BodyPublisher::contentLength).orElse(0L);
            reply = reply.charged(Usage.worstCase(requestBytes, plan.maxTokens()));
            LOG.warn("provider '{}' model '{}' answered HTTP {} with token counts that cannot be taken ({}); the call "
                    + "is charged {} input and {} output tokens instead (request {})", name, model, reply.status(),
                    reply.usageRefused(), reply.usage().inputTokens(), reply.usage().outputTokens(), reply.requestId());
        }
        span.answered(reply);
        limits.answered(turn, startedAt, RateLimitHeaders.read(response.headers(), startedAt), reply.usage(),
                reply.isSuccess());
        boolean down = isOutageAnswer(reply);
        if (!down) {
            // Any other answer, a refusal included, shows the provider is up.
            gate.circuit().answered(ticket);
        }
        BigDecimal cost = price.cost(reply.usage());
        metrics.usage(name, reply.usage(), cost);
        ProviderCall call = new ProviderCall(UUID.randomUUID(), pass, name, model, reply.usage().inputTokens(), reply.usage().outputTokens(),
                reply.usage().cacheReadTokens(), reply.usage().cacheWriteTokens(), cost, latency, Disposition.ANSWER,
                reply.requestId(), startedAt);
        LOG.debug("provider '{}' model '{}' answered HTTP {} in {} ms (request {})", name, model, reply.status(),
                latency.toMillis(), reply.requestId());

        if (reply.isSuccess() && reply.cut()) {
            cut(reply, call, calls, latency, plan, lastTry);
            return Optional.empty();
        }
        if (reply.isSuccess()) {
            return Optional.of(answer(reply, call, conflict, winner, calls, latency));
        }
        if (down) {
            metrics.call(name, CallOutcome.SERVER_ERROR, latency);
            calls.add(call.withDisposition(Disposition.FAILED));
            throw outageLike(ticket, conflict, "provider '" + name + "' model '" + model + "' answered HTTP "
                    + reply.status() + " (" + describe(reply.error()) + ")",
                    "the model provider was unavailable (HTTP " + reply.status() + ")", null, calls);
        }
        return Optional.of(refuse(reply, call, calls, latency));
    }

    /**
     * The reply to a body read whole, or to one that went on past its limit: that one was not read further, its
     * counts are unknown, and it cannot be an answer to use.
     */
    private ProviderReply read(HttpResponse<CappedBody.Read> response) {
        CappedBody.Read body = response.body();
        if (body.whole()) {
            return protocol.read(response.statusCode(), response.headers(), body.bytes());
        }
        String why = "the body went on past " + body.limit() + " bytes, more than an answer of at most "
                + settings.getMaxAnswerBytes() + " bytes needs; reading stopped there";
        return new ProviderReply(response.statusCode(), response.headers(), Usage.NONE,
                response.headers().firstValue(protocol.requestIdHeader()).map(ProviderText::clean).orElse(null),
                null, why, ProviderError.NONE, false, null, why);
    }

    /** A 5xx that is not an overload: what a provider answers when it is broken, not busy. */
    private static boolean isOutageAnswer(ProviderReply reply) {
        return reply.status() >= 500 && !isOverload(reply);
    }

    private static boolean isOverload(ProviderReply reply) {
        return reply.status() == 529 || reply.error().mentions("overloaded");
    }

    /** Sends and waits, giving up the wait at once when the worker interrupts. */
    private HttpResponse<CappedBody.Read> exchange(HttpRequest request, String model, ConflictSnapshot conflict,
                                          List<ProviderCall> calls, long started, ProviderCircuit.Ticket ticket,
                                          ProviderCallSpan span)
            throws SynthesisException, InterruptedException {
        CompletableFuture<HttpResponse<CappedBody.Read>> future = http.sendAsync(request, bodyHandler);
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            span.failed(e);
            throw e;
        } catch (ExecutionException e) {
            Duration waited = Duration.ofNanos(ticker.nanos() - started);
            metrics.call(name, CallOutcome.TIMEOUT, waited);
            Throwable cause = e.getCause();
            span.failed(cause);
            String what = cause instanceof HttpTimeoutException
                    ? "did not answer within " + settings.getRequestTimeout().toMillis() + " ms"
                    : "could not be reached (" + cause.getClass().getSimpleName() + ")";
            String summary = cause instanceof HttpTimeoutException
                    ? "the model provider did not answer within " + settings.getRequestTimeout().toMillis() + " ms"
                    : "the model provider could not be reached";
            // The cause is kept for its stack, never its request: the JDK's exceptions do not carry headers.
            throw outageLike(ticket, conflict, "provider '" + name + "' model '" + model + "' " + what, summary,
                    cause instanceof IOException ? cause : e, calls);
        }
    }

    private PassAnswer answer(ProviderReply reply, ProviderCall call, ConflictSnapshot conflict, PolicyRule winner,
                              List<ProviderCall> calls, Duration latency) throws InvalidAnswerException {
        // The provider did its job whether or not the model's answer passes: the key works, the slot may grow.
        gate.succeeded();
        try {
            if (reply.answerText() == null) {
                throw new AnswerRejected(reply.unreadable());
            }
            ModelAnswer answer = AnswerCheck.check(reply.answerText(), conflict, settings.getMaxAnswerBytes());
            metrics.call(name, CallOutcome.OK, latency);
            budget.answered(call.model(), conflict.rules().size(), call.outputTokens());
            calls.add(call);
            return new PassAnswer(
                    answer.toMerge(conflict, winner, new ProducedBy(LlmSynthesizer.NAME, name, call.model()),
                            clock.instant()),
                    answer.confidence(), calls.size() - 1, AnswerCheck.parse(reply.answerText()).toString());
        } catch (AnswerRejected e) {
            metrics.call(name, CallOutcome.INVALID_OUTPUT, latency);
            calls.add(call.withDisposition(Disposition.FAILED));
            // The check's own words, with at most a short excerpt of the answer: fit for the conflict's org.
            throw new InvalidAnswerException("provider '" + name + "' model '" + call.model()
                    + "' gave an answer that cannot be used: " + e.getMessage(),
                    "the answer was not a valid merge: " + e.getMessage(), calls);
        }
    }

    /**
     * An answer that stopped at its budget: paid for and unfinished, whatever text it has. The first is asked
     * again with more (the caller does); a second fails the attempt as an answer that cannot be used.
     */
    private void cut(ProviderReply reply, ProviderCall call, List<ProviderCall> calls, Duration latency,
                     RequestPlan plan, boolean lastTry) throws InvalidAnswerException {
        gate.succeeded();
        metrics.call(name, CallOutcome.INVALID_OUTPUT, latency);
        calls.add(call.withDisposition(Disposition.FAILED));
        if (lastTry) {
            throw new InvalidAnswerException("provider '" + name + "' model '" + call.model()
                    + "' stopped its answer at max_tokens " + plan.maxTokens() + ", the second cut answer of this "
                    + "attempt (request " + reply.requestId() + ")",
                    "the answer was cut short at the output limit twice", calls);
        }
        LOG.debug("provider '{}' model '{}' stopped at max_tokens {} (request {}); asking once more with more",
                name, call.model(), plan.maxTokens(), reply.requestId());
    }

    private PassAnswer refuse(ProviderReply reply, ProviderCall call, List<ProviderCall> calls, Duration latency)
            throws SynthesisException {
        int status = reply.status();
        ProviderError error = reply.error();
        String model = call.model();
        if (status == 401 || status == 403) {
            metrics.call(name, CallOutcome.SERVER_ERROR, latency);
            calls.add(call.withDisposition(Disposition.FAILED));
            Duration wait = gate.refusedKey(status);
            // The provider's own message is left out on purpose: OpenAI's quotes part of the key.
            throw new SynthesisDeferred(SynthesisDeferred.Cause.REFUSED_KEY, name, wait,
                    "provider '" + name + "' refused its key (HTTP " + status + "): check " + settings.keyVariable(),
                    "the model provider refused this service's key (HTTP " + status + ")", calls);
        }
        if (status == 429 && isSpendLimit(error)) {
            metrics.call(name, CallOutcome.RATE_LIMITED, latency);
            calls.add(call.withDisposition(Disposition.RATE_LIMITED));
            Duration wait = gate.spendLimitReached();
            throw new SynthesisDeferred(SynthesisDeferred.Cause.PROVIDER_SPEND_LIMIT, name, wait,
                    "provider '" + name + "' says the spend limit is reached (" + describe(error) + ")",
                    "the model provider says this service's spend limit is reached (HTTP " + status + ")", calls);
        }
        boolean overloaded = isOverload(reply);
        if (status == 429 || overloaded) {
            SynthesisDeferred.Cause cause = overloaded ? SynthesisDeferred.Cause.OVERLOADED
                    : SynthesisDeferred.Cause.RATE_LIMITED;
            metrics.call(name, overloaded ? CallOutcome.OVERLOADED : CallOutcome.RATE_LIMITED, latency);
            calls.add(call.withDisposition(Disposition.RATE_LIMITED));
            Duration wait = gate.throttled(cause, model,
                    RetryAfter.pause(reply.headers(), clock.instant(), THROTTLE_FALLBACK, THROTTLE_CAP));
            throw new SynthesisDeferred(cause, name, wait, "provider '" + name + "' model '" + model + "' answered HTTP "
                    + status + " (" + describe(error) + "); pausing it for " + wait.toMillis() + " ms",
                    (overloaded ? "the model provider was overloaded" : "the model provider asked to slow down")
                            + " (HTTP " + status + "); tried again in " + wait.toMillis() + " ms", calls);
        }
        metrics.call(name, CallOutcome.SERVER_ERROR, latency);
        calls.add(call.withDisposition(Disposition.FAILED));
        throw new SynthesisException("provider '" + name + "' model '" + model + "' answered HTTP " + status + " ("
                + describe(error) + ")", "the model provider refused the request (HTTP " + status + ")", null, calls);
    }

    /**
     * A 429 that no wait will cure. Only the error's type and code are trusted for this: rate-limit messages
     * of some compatible servers also speak of "quota", per minute.
     */
    static boolean isSpendLimit(ProviderError error) {
        return error.mentions("insufficient_quota") || error.mentions("spend_limit") || error.mentions("billing")
                || error.message().toLowerCase(java.util.Locale.ROOT).contains("spend limit");
    }

    /**
     * The provider's error for the operator's log, with everything key-shaped taken out: providers quote keys
     * back, whole or shortened. Never for a tenant's eyes (see {@link SynthesisException#summary()}).
     */
    private String describe(ProviderError error) {
        String key = settings.hasKey() ? settings.getApiKey() : null;
        String type = KeyShapes.removeFrom(error.type().isEmpty() ? error.code() : error.type(), key);
        String message = KeyShapes.removeFrom(error.message(), key);
        if (message.length() > 300) {
            message = message.substring(0, 300) + "...";
        }
        if (type.isEmpty() && message.isEmpty()) {
            return "no error details";
        }
        return type.isEmpty() ? message : message.isEmpty() ? type : type + ": " + message;
    }
}
