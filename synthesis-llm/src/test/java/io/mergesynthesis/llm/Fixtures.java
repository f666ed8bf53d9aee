package io.mergesynthesis.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.mergesynthesis.synthesis.Action;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Effect;
import io.mergesynthesis.synthesis.PolicyRule;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.Scope;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/** Conflicts, settings and small readers the tests share. Model names are made up, as in any test. */
final class Fixtures {

    static final String KEY = "test-key-0a1b2c3d4e5f";
    static final ObjectMapper JSON = JsonMapper.builder().addModule(new JavaTimeModule()).build();

    private Fixtures() {
    }

    /** Three rules: an org deny that wins, a member allow it covers, a broader org-unit allow it narrows. */
    static ConflictSnapshot conflict() {
        return new ConflictSnapshot(
                UUID.fromString("b78a49a9-b9b7-42f8-87e9-75e7287d2609"),
                UUID.fromString("66149ad9-b0fe-4981-b3a0-ea0d94e58b4f"),
                "tool_call|jira.create_issue|pol-org-1|pol-mbr-2|pol-ou-3",
                Action.TOOL_CALL,
                "jira.create_issue",
                List.of(
                        new PolicyRule("pol-org-1", Scope.ORG, "66149ad9-b0fe-4981-b3a0-ea0d94e58b4f", Effect.DENY,
                                "jira.create_issue"),
                        new PolicyRule("pol-mbr-2", Scope.MEMBER, "8933773f-aa0d-458e-813c-8213ff0584c1", Effect.ALLOW,
                                "jira.create_issue"),
                        new PolicyRule("pol-ou-3", Scope.ORG_UNIT, "ou-77", Effect.ALLOW, "jira.*")),
                "pol-org-1",
                Instant.parse("2026-11-20T10:15:00Z"));
    }

    /**
     * A conflict every kind of unsafe merge can break: an org require_approval that wins, a member allow it
     * covers (removed), and a platform deny broader and stricter than it (narrowed).
     */
    static ConflictSnapshot conflictWithAStricterLoser() {
        String org = "66149ad9-b0fe-4981-b3a0-ea0d94e58b4f";
        return new ConflictSnapshot(
                UUID.fromString("0c5e7a51-3d0e-4a8e-9a56-1f1b8f0a2b77"),
                UUID.fromString(org),
                "tool_call|jira.create_issue|pol-org-1|pol-mbr-2|pol-plat-3",
                Action.TOOL_CALL,
                "jira.create_issue",
                List.of(
                        new PolicyRule("pol-org-1", Scope.ORG, org, Effect.REQUIRE_APPROVAL, "jira.create_issue"),
                        new PolicyRule("pol-mbr-2", Scope.MEMBER, "8933773f-aa0d-458e-813c-8213ff0584c1", Effect.ALLOW,
                                "jira.create_issue"),
                        new PolicyRule("pol-plat-3", Scope.PLATFORM, null, Effect.DENY, "jira.*")),
                "pol-org-1",
                Instant.parse("2026-11-20T10:15:00Z"));
    }

    /** The same conflict under another id, as another conflict of the backlog would be. */
    static ConflictSnapshot anotherConflict() {
        ConflictSnapshot c = conflict();
        return new ConflictSnapshot(UUID.randomUUID(), c.orgId(), c.dedupKey(), c.action(), c.target(), c.rules(),
                c.winnerPolicyId(), c.detectedAt());
    }

    /** A valid answer to {@link #conflict()}. */
    static String answer(double confidence) {
        return """
                {"resolved_effect":"deny",
                 "merged_rule":{"scope":"org","scope_id":"66149ad9-b0fe-4981-b3a0-ea0d94e58b4f","effect":"deny",
                                "target":"jira.create_issue","based_on_policy_id":"pol-org-1"},
                 "loser_actions":[{"policy_id":"pol-ou-3","action":"narrow","detail":"exclude jira.create_issue"},
                                  {"policy_id":"pol-mbr-2","action":"remove","detail":"shadowed by pol-org-1"}],
                 "rationale":"The org rule wins.",
                 "confidence":%s}
                """.formatted(confidence);
    }

    static ResolvedModel model(String provider, String model) {
        return new ResolvedModel(Router.MERGE_SYNTHESIS, provider, model);
    }

    static ResolvedModel escalating(String provider, String model, String escalationProvider, String escalationModel) {
        return new ResolvedModel(Router.MERGE_SYNTHESIS, provider, model, model(escalationProvider, escalationModel));
    }

    static ProviderSettings provider(ProviderType type, String baseUrl, AnswerMode mode) {
        ProviderSettings provider = new ProviderSettings(type, baseUrl, KEY);
        provider.setAnswerMode(mode);
        return provider;
    }

    static ModelPrice price(String input, String output) {
        return new ModelPrice(new BigDecimal(input), new BigDecimal(output));
    }

    /** Settings with both providers at the given base URLs and the made-up models priced. */
    static LlmSettings settings(String anthropicBaseUrl, String openAiBaseUrl, AnswerMode mode) {
        LlmSettings settings = new LlmSettings();
        settings.setPrimaryModel("anthropic/test-model");
        settings.setEscalationModel("anthropic/test-model-large");
        settings.getProviders().put("anthropic", provider(ProviderType.ANTHROPIC, anthropicBaseUrl, mode));
        settings.getProviders().put("openai", provider(ProviderType.OPENAI, openAiBaseUrl, mode));
        settings.getModels().put("anthropic/test-model", price("3", "15"));
        settings.getModels().put("anthropic/test-model-large", price("15", "75"));
        settings.getModels().put("openai/test-model", price("1.25", "10"));
        settings.getModels().put("openai/test-model-large", price("5", "20"));
        return settings;
    }

    /** The body a request will send, read through its publisher as the HTTP client would. */
    static String body(HttpRequest request) {
        CompletableFuture<String> done = new CompletableFuture<>();
        request.bodyPublisher().orElseThrow().subscribe(new Flow.Subscriber<>() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                byte[] bytes = new byte[item.remaining()];
                item.get(bytes);
                text.append(new String(bytes, StandardCharsets.UTF_8));
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

    /** The golden folder; the build names it, an IDE run finds it by walking up to the repository root. */
    static Path goldenDir() {
        String configured = System.getProperty("golden.dir");
        if (configured != null && !configured.isBlank() && Files.isDirectory(Path.of(configured))) {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("testdata/merge_golden");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("testdata/merge_golden not found; set -Dgolden.dir");
    }

    static ConflictSnapshot readConflict(Path file) throws IOException {
        return JSON.readValue(file.toFile(), ConflictSnapshot.class);
    }
}
