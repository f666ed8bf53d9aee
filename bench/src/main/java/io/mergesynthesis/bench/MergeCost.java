package io.mergesynthesis.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.mergesynthesis.llm.AnswerMode;
import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.llm.ModelPrice;
import io.mergesynthesis.llm.Prompt;
import io.mergesynthesis.llm.ProviderReply;
import io.mergesynthesis.llm.ProviderSettings;
import io.mergesynthesis.llm.ProviderType;
import io.mergesynthesis.llm.RequestPlan;
import io.mergesynthesis.llm.TokenEstimate;
import io.mergesynthesis.llm.Usage;
import io.mergesynthesis.llm.WireProtocol;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ProviderCall;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.Scope;
import io.mergesynthesis.synthesis.Ticker;
import io.prometheus.client.CollectorRegistry;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a merge costs, per configured model: {@code java -cp bench/target/merge-synthesis-bench.jar
 * io.mergesynthesis.bench.MergeCost [--merges N] [--config config.yml]}. About ten seconds; no database.
 *
 * <p>Each model's merges go to a stand-in provider of the model's protocol that counts tokens itself
 * ({@link Behaviour#countsTokens}) and keeps a prompt cache, in four ways: the request as it is now, through the
 * LLM synthesizer (learnt {@code max_tokens}, a cut answer asked again, the prefix marked by the model's
 * {@code minCachedPrefixTokens}); and the request as it was before ADR 0039, built here (the schema pretty-printed
 * into the system prompt as well as in the tool or response format, the prefix after the budget, a fixed
 * {@code max_tokens}, no cache marker) and posted to the same stand-in. Each with the stand-in's cache on and
 * off. Costs are the model's configured prices applied to the stand-in's counts, so they are as right as that
 * count is; the characters/4 estimate of the same requests is printed beside it as a second opinion.
 */
public final class MergeCost {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** OpenAI's documented shortest cached prefix, for models whose settings name none. */
    private static final long OPENAI_CACHE_MINIMUM = 1024;
    private static final Pattern DEFAULTED = Pattern.compile("\\$\\{[^:}]+:-([^}]*)}");

    private MergeCost() {
    }

    /** How the requests of one run are shaped, and whether the stand-in caches. */
    enum Shape {
        BEFORE, AFTER
    }

    record Row(String model, Shape shape, boolean cache, double inputPerMerge, double cacheReadPerMerge,
               double cacheWritePerMerge, double outputPerMerge, double callsPerMerge, double estimatePerCall,
               BigDecimal costPer1000) {
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
    }

    /** Reads {@code [--merges N] [--config FILE]}, measures and prints the table. */
    static void run(String[] args, PrintStream out) throws Exception {
        int merges = 200;
        Path config = Path.of("config.yml");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--merges" -> merges = Integer.parseInt(args[++i]);
                case "--config" -> config = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("usage: --merge-cost [--merges N] [--config FILE]"
                        + " (not " + args[i] + ")");
            }
        }
        print(run(config, merges), merges, out);
    }

    static List<Row> run(Path config, int merges) throws Exception {
        JsonNode llm = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(config)).path("llm");
        List<ConflictSnapshot> conflicts = conflicts(merges);
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : iterable(llm.path("models"))) {
            String qualified = defaulted(entry.getKey());
            String provider = qualified.substring(0, qualified.indexOf('/'));
            String model = qualified.substring(qualified.indexOf('/') + 1);
            JsonNode providerNode = llm.path("providers").path(provider);
            ProviderType type = JSON.convertValue(defaulted(providerNode.path("type").asText()), ProviderType.class);
            AnswerMode mode = JSON.convertValue(defaulted(providerNode.path("answerMode").asText("tool")), AnswerMode.class);
            ModelPrice price = JSON.treeToValue(entry.getValue(), ModelPrice.class);
            for (Shape shape : Shape.values()) {
                for (boolean cache : new boolean[] {false, true}) {
                    rows.add(measure(qualified, provider, model, type, mode, price, shape, cache, conflicts));
                }
            }
        }
        return rows;
    }

    private static Row measure(String qualified, String providerName, String model, ProviderType type,
                               AnswerMode mode, ModelPrice price, Shape shape, boolean cache,
                               List<ConflictSnapshot> conflicts) throws Exception {
        long minimum = price.getMinCachedPrefixTokens() != null ? price.getMinCachedPrefixTokens()
                : type == ProviderType.OPENAI ? OPENAI_CACHE_MINIMUM : Long.MAX_VALUE;
        Behaviour behaviour = new Behaviour().countsTokens(true).cutAtMaxTokens(true)
                .cacheMinimumTokens(cache ? minimum : Long.MAX_VALUE);
        try (StandInProvider standIn = StandInProvider.start(behaviour)) {
            ProviderSettings provider = new ProviderSettings(type,
                    type == ProviderType.ANTHROPIC ? standIn.anthropicBaseUrl() : standIn.openAiBaseUrl(),
                    "bench-" + UUID.randomUUID());
            provider.setAnswerMode(mode);
            ModelPrice priced = JSON.convertValue(price, ModelPrice.class);
            if (!cache) {
                priced.setMinCachedPrefixTokens(null);
            }
            Prompt prompt = Prompt.shipped();
            WireProtocol protocol = WireProtocol.of(type);
            long input = 0;
            long read = 0;
            long written = 0;
            long output = 0;
            long calls = 0;
            long estimate = 0;
            BigDecimal cost = BigDecimal.ZERO;
            LlmSynthesizer synthesizer = shape == Shape.AFTER ? synthesizer(providerName, qualified, provider, priced) : null;
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (ConflictSnapshot conflict : conflicts) {
                if (shape == Shape.AFTER) {
                    List<ProviderCall> made = synthesizer.synthesizeWithCalls(conflict,
                            new ResolvedModel(Router.MERGE_SYNTHESIS, providerName, model)).calls();
                    for (ProviderCall call : made) {
                        input += call.inputTokens();
                        read += call.cacheReadTokens();
                        written += call.cacheWriteTokens();
                        output += call.outputTokens();
                        cost = cost.add(call.costUsd());
                        calls++;
                    }
                    estimate += estimate(body(protocol.request(provider, model, prompt, conflict, null,
                            new RequestPlan(provider.getMaxOutputTokens(), priced.cacheFromTokens()))));
                } else {
                    String body = beforeBody(type, mode, model, prompt, conflict, provider.getMaxOutputTokens());
                    HttpRequest request = protocol.request(provider, model, prompt, conflict);
                    HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(request.uri())
                            .headers(headers(request))
                            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
                    ProviderReply reply = protocol.read(response.statusCode(), response.headers(), response.body());
                    if (response.statusCode() != 200 || reply.answerText() == null || reply.cut()) {
                        throw new IllegalStateException("the stand-in did not answer the earlier request shape: HTTP "
                                + response.statusCode());
                    }
                    Usage usage = reply.usage();
                    input += usage.inputTokens();
                    read += usage.cacheReadTokens();
                    written += usage.cacheWriteTokens();
                    output += usage.outputTokens();
                    cost = cost.add(priced.cost(usage));
                    calls++;
                    estimate += estimate(body);
                }
            }
            double n = conflicts.size();
            return new Row(qualified, shape, cache, input / n, read / n, written / n, output / n, calls / n,
                    estimate / n, cost.multiply(BigDecimal.valueOf(1000)).divide(BigDecimal.valueOf(conflicts.size()),
                    6, RoundingMode.HALF_UP));
        }
    }

    private static LlmSynthesizer synthesizer(String providerName, String qualified, ProviderSettings provider,
                                              ModelPrice price) {
        LlmSettings settings = new LlmSettings();
        settings.setPrimaryModel(qualified);
        // The same model: no escalation, so that a merge's cost is its own model's alone.
        settings.setEscalationModel(qualified);
        settings.getProviders().put(providerName, provider);
        settings.getModels().put(qualified, price);
        return new LlmSynthesizer(settings, Clock.systemUTC(), Ticker.SYSTEM, new CollectorRegistry());
    }

    /**
     * The body the synthesizer sent before ADR 0039, rebuilt from today's prompt resources: the system prompt
     * closed with the sentence it had then and the schema pretty-printed after it, the budget before the
     * messages, the tool or response format last, no cache marker. The prompt's other words are today's.
     */
    static String beforeBody(ProviderType type, AnswerMode mode, String model, Prompt prompt,
                             ConflictSnapshot conflict, int maxTokens) throws Exception {
        String system = prompt.instructions() + " If a tool is offered, answer by calling it. Otherwise answer\n"
                + "with one JSON object and nothing else, matching this schema:\n\n"
                + JSON.writerWithDefaultPrettyPrinter().writeValueAsString(prompt.answerSchema()) + "\n";
        ObjectNode body = JSON.createObjectNode();
        body.put("model", model);
        body.put(type == ProviderType.ANTHROPIC ? "max_tokens" : "max_completion_tokens", maxTokens);
        if (type == ProviderType.ANTHROPIC) {
            body.put("system", system);
        }
        ArrayNode messages = body.putArray("messages");
        if (type != ProviderType.ANTHROPIC) {
            messages.addObject().put("role", "system").put("content", system);
        }
        messages.addObject().put("role", "user").put("content", prompt.userMessage(conflict));
        if (mode == AnswerMode.TOOL && type == ProviderType.ANTHROPIC) {
            ObjectNode tool = body.putArray("tools").addObject();
            tool.put("name", prompt.toolName());
            tool.put("description", prompt.toolDescription());
            tool.set("input_schema", prompt.answerSchema());
            body.putObject("tool_choice").put("type", "tool").put("name", prompt.toolName());
        } else if (mode == AnswerMode.TOOL) {
            ObjectNode function = body.putArray("tools").addObject().put("type", "function").putObject("function");
            function.put("name", prompt.toolName());
            function.put("description", prompt.toolDescription());
            function.set("parameters", prompt.answerSchema());
            function.put("strict", true);
            ObjectNode choice = body.putObject("tool_choice");
            choice.put("type", "function");
            choice.putObject("function").put("name", prompt.toolName());
        } else if (mode == AnswerMode.JSON_SCHEMA && type != ProviderType.ANTHROPIC) {
            ObjectNode schema = body.putObject("response_format").put("type", "json_schema").putObject("json_schema");
            schema.put("name", prompt.toolName());
            schema.put("strict", true);
            schema.set("schema", prompt.answerSchema());
        }
        return body.toString();
    }

    /** Characters/4 of what the model reads: the system prompt, the tools or response format, every message. */
    static long estimate(String body) throws Exception {
        JsonNode json = JSON.readTree(body);
        StringBuilder read = new StringBuilder(text(json.path("system")));
        for (String structured : new String[] {"tools", "response_format"}) {
            if (json.has(structured)) {
                read.append(json.get(structured).toString());
            }
        }
        for (JsonNode message : json.path("messages")) {
            read.append(text(message.path("content")));
        }
        return TokenEstimate.of(read);
    }

    private static String text(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        content.forEach(part -> text.append(part.path("text").asText("")));
        return text.toString();
    }

    private static String[] headers(HttpRequest request) {
        List<String> pairs = new ArrayList<>();
        request.headers().map().forEach((name, values) -> values.forEach(value -> {
            pairs.add(name);
            pairs.add(value);
        }));
        return pairs.toArray(String[]::new);
    }

    private static String body(HttpRequest request) {
        CompletableFuture<String> done = new CompletableFuture<>();
        request.bodyPublisher().orElseThrow().subscribe(new Flow.Subscriber<>() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                text.append(java.nio.charset.StandardCharsets.UTF_8.decode(item));
            }

            @Override
            public void onError(Throwable throwable) {
                done.completeExceptionally(throwable);
            }

            @Override
            public void onComplete() {
                done.complete(text.toString());
            }
        });
        return done.join();
    }

    /**
     * Seeded conflicts of two to six rules, shaped like the golden ones: every rule covers the target someone
     * tried (the exact name, its prefix pattern or {@code *}), one of them is the winner.
     */
    static List<ConflictSnapshot> conflicts(int n) {
        Random random = new Random(30);
        String[] tried = {"jira.create_issue", "github.merge_pull_request", "crm.export_contacts", "wiki.search"};
        List<ConflictSnapshot> conflicts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            UUID org = new UUID(random.nextLong(), random.nextLong());
            String target = tried[random.nextInt(tried.length)];
            String[] covering = {target, target.substring(0, target.indexOf('.')) + ".*", "*"};
            int size = 2 + random.nextInt(5);
            List<PolicyRule> rules = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                Scope scope = Scope.values()[random.nextInt(Scope.values().length)];
                String owner = switch (scope) {
                    case PLATFORM -> null;
                    case ORG -> org.toString();
                    default -> new UUID(random.nextLong(), random.nextLong()).toString();
                };
                rules.add(new PolicyRule("pol-" + scope.wireName() + "-" + (r + 1), scope, owner,
                        Effect.values()[random.nextInt(Effect.values().length)],
                        covering[random.nextInt(covering.length)]));
            }
            conflicts.add(new ConflictSnapshot(new UUID(random.nextLong(), random.nextLong()), org, "bench-" + i,
                    Action.values()[random.nextInt(Action.values().length)], target, rules,
                    rules.get(random.nextInt(size)).policyId(), Instant.parse("2026-11-25T10:00:00Z")));
        }
        return conflicts;
    }

    static void print(List<Row> rows, int merges, PrintStream out) {
        out.printf(Locale.ROOT, "%d merges per model and shape; tokens by the stand-in's count, per merge; "
                + "estimate = characters/4 of one call's input%n", merges);
        out.println("| model | request | cache | input | cache read | cache write | output | calls | estimate/call "
                + "| USD per 1,000 merges |");
        out.println("|---|---|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Row row : rows) {
            out.printf(Locale.ROOT, "| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.0f | %s |%n", row.model(),
                    row.shape().name().toLowerCase(Locale.ROOT), row.cache() ? "on" : "off", row.inputPerMerge(),
                    row.cacheReadPerMerge(), row.cacheWritePerMerge(), row.outputPerMerge(), row.callsPerMerge(),
                    row.estimatePerCall(), row.costPer1000().setScale(3, RoundingMode.HALF_UP).toPlainString());
        }
    }

    private static String defaulted(String value) {
        Matcher m = DEFAULTED.matcher(value);
        return m.replaceAll(match -> Matcher.quoteReplacement(match.group(1)));
    }

    private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode node) {
        Map<String, JsonNode> fields = new LinkedHashMap<>();
        node.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue()));
        return fields.entrySet();
    }
}
