package io.mergesynthesis.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mergesynthesis.llm.ProviderBatches.Batch;
import io.mergesynthesis.llm.ProviderBatches.Failed;
import io.mergesynthesis.llm.ProviderBatches.Outcome;
import io.mergesynthesis.llm.ProviderBatches.Page;
import io.mergesynthesis.llm.ProviderBatches.Request;
import io.mergesynthesis.llm.ProviderBatches.Result;
import io.mergesynthesis.llm.ProviderBatches.Stage;
import io.mergesynthesis.llm.anthropic.AnthropicBatches;
import io.mergesynthesis.llm.anthropic.AnthropicProtocol;
import io.mergesynthesis.llm.openai.OpenAiBatches;
import io.mergesynthesis.llm.openai.OpenAiProtocol;
import io.mergesynthesis.standin.Behaviour;
import io.mergesynthesis.standin.StandInProvider;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.Synthesis;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both batch clients over HTTP against the stand-in, each in its own protocol: a batch made, seen in progress,
 * ended by hand and its results read (and a succeeded one read as a merge, as the batch lane reads it); the list,
 * a cancel, a create whose answer comes too late, a batch that expires part-done, requests that err, a 429.
 */
@Timeout(60)
class ProviderBatchesAgainstStandInTest {

    private static final String MODEL = "test-model";
    private StandInProvider standIn;

    @AfterEach
    void stop() {
        if (standIn != null) {
            standIn.close();
        }
    }

    private ProviderSettings provider(ProviderType type, Behaviour behaviour) throws Exception {
        standIn = StandInProvider.start(behaviour.expectedKey(Fixtures.KEY));
        return Fixtures.provider(type, type == ProviderType.ANTHROPIC ? standIn.anthropicBaseUrl()
                : standIn.openAiBaseUrl(), AnswerMode.TOOL);
    }

    private static String protocol(ProviderType type) {
        return type.wireName();
    }

    /** The request the interactive lane would send for {@code conflict}, as a batch's request. */
    private static Request request(ProviderSettings provider, String customId, ConflictSnapshot conflict) {
        RequestPlan plan = RequestPlan.unsized(provider);
        ObjectNode body = provider.getType() == ProviderType.ANTHROPIC
                ? AnthropicProtocol.body(provider, MODEL, Prompt.shipped(), conflict, null, plan)
                : OpenAiProtocol.body(provider, MODEL, Prompt.shipped(), conflict, null, plan);
        return new Request(customId, body);
    }

    private static List<Request> requests(ProviderSettings provider, String... customIds) {
        return Arrays.stream(customIds).map(id -> request(provider, id, Fixtures.conflict())).toList();
    }

    private static Map<String, Result> results(ProviderBatches client, Batch batch) throws Exception {
        try (Stream<Result> results = client.results(batch)) {
            return results.collect(Collectors.toMap(Result::customId, Function.identity()));
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderType.class)
    void aBatchIsInProgressUntilItEndsAndItsAnswersReadAsMerges(ProviderType type) throws Exception {
        ProviderSettings provider = provider(type, new Behaviour());
        ProviderBatches client = ProviderBatches.of(provider);
        assertThat(client).isInstanceOf(type == ProviderType.ANTHROPIC ? AnthropicBatches.class : OpenAiBatches.class);

        Batch created = client.create("own-1", requests(provider, "r1", "r2"));

        assertThat(created.stage()).isEqualTo(Stage.IN_PROGRESS);
        assertThat(created.createdAt()).isNotNull();
        assertThat(client.retrieve(created.id()).stage()).isEqualTo(Stage.IN_PROGRESS);
        assertThat(catchThrowableOfType(() -> client.results(created), Failed.class)).isNotNull();
        assertThat(standIn.endBatch(created.id())).isTrue();

        Batch ended = client.retrieve(created.id());
        assertThat(ended.ended()).isTrue();
        Map<String, Result> results = results(client, ended);
        assertThat(results).containsOnlyKeys("r1", "r2");
        Result first = results.get("r1");
        assertThat(first.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(first.error()).isNull();
        Synthesis merge = BatchAnswer.read(type, first.answer(), Fixtures.conflict(), protocol(type), MODEL,
                Fixtures.price("3", "15"), 65536, UUID.randomUUID(), Instant.now());
        assertThat(merge.merge().mergedRule().basedOnPolicyId()).isEqualTo("pol-org-1");
        assertThat(standIn.stats().batches(protocol(type))).isEqualTo(1);
        assertThat(standIn.stats().batchBilled(protocol(type))).isEqualTo(2);
        assertThat(standIn.stats().billedMoreThanOnce()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(ProviderType.class)
    void readsEveryOutcomeOfABatchThatErrsAndExpiresPartDoneAndOfOneCancelled(ProviderType type) throws Exception {
        ProviderSettings provider = provider(type, new Behaviour().batchErrorEvery(2).batchResultSeed(7L));
        ProviderBatches client = ProviderBatches.of(provider);
        Batch expiring = client.create("own-e", requests(provider, "e1", "e2", "e3", "e4"));
        Batch cancelled = client.create("own-c", requests(provider, "c1", "c2"));

        standIn.expireBatch(expiring.id(), 2);
        Batch canceling = client.cancel(cancelled.id());
        assertThat(canceling.stage()).isEqualTo(Stage.CANCELING);
        assertThat(canceling.ended()).isFalse();
        assertThat(client.retrieve(cancelled.id()).stage()).isEqualTo(Stage.CANCELING);
        standIn.endBatch(cancelled.id());

        Map<String, Result> expired = results(client, client.retrieve(expiring.id()));
        assertThat(expired.get("e1").outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(expired.get("e2").outcome()).isEqualTo(Outcome.ERRORED);
        assertThat(expired.get("e2").error()).isEqualTo("api_error");
        assertThat(expired.get("e2").answer()).isNull();
        assertThat(expired.get("e3").outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(expired.get("e4").outcome()).isEqualTo(Outcome.EXPIRED);
        Batch cancelledNow = client.retrieve(cancelled.id());
        assertThat(cancelledNow.stage()).isEqualTo(Stage.ENDED);
        assertThat(results(client, cancelledNow).values()).extracting(Result::outcome)
                .containsOnly(Outcome.CANCELED).hasSize(2);
        assertThat(standIn.billedByCustomId()).containsOnlyKeys("e1");
    }

    @ParameterizedTest
    @EnumSource(ProviderType.class)
    void theListIsNewestFirstAndPagesOnAndNamesTheOwnIdWhereTheProtocolKeepsOne(ProviderType type)
            throws Exception {
        ProviderSettings provider = provider(type, new Behaviour());
        ProviderBatches client = ProviderBatches.of(provider);
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            made.add(client.create("own-" + i, requests(provider, "l" + i)).id());
        }

        Page first = client.list(null, 2);
        Page second = client.list(first.lastId(), 2);

        assertThat(first.batches()).extracting(Batch::id).containsExactly(made.get(2), made.get(1));
        assertThat(first.hasMore()).isTrue();
        assertThat(second.batches()).extracting(Batch::id).containsExactly(made.get(0));
        assertThat(second.hasMore()).isFalse();
        assertThat(client.carriesOwnId()).isEqualTo(type == ProviderType.OPENAI);
        if (client.carriesOwnId()) {
            assertThat(first.batches()).extracting(Batch::ownId).containsExactly("own-2", "own-1");
        } else {
            assertThat(first.batches()).extracting(Batch::ownId).containsOnlyNulls();
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderType.class)
    void aCreateAnsweredTooLateHasMadeABatchThatIsFoundAgain(ProviderType type) throws Exception {
        ProviderSettings provider = provider(type, new Behaviour().batchCreateDelay(Duration.ofSeconds(30)));
        provider.setRequestTimeout(Duration.ofSeconds(2));
        ProviderBatches client = ProviderBatches.of(provider);

        Failed lost = catchThrowableOfType(() -> client.create("own-lost", requests(provider, "lost1", "lost2")),
                Failed.class);

        assertThat(lost.status()).as("no answer").isZero();
        assertThat(standIn.batchesInProgress()).hasSize(1);
        Batch found = client.list(null, 10).batches().get(0);
        assertThat(found.id()).isEqualTo(standIn.batchesInProgress().get(0));
        if (client.carriesOwnId()) {
            assertThat(found.ownId()).isEqualTo("own-lost");
        } else {
            // Recognised by what its results carry, once it has ended.
            standIn.endBatch(found.id());
            assertThat(results(client, client.retrieve(found.id()))).containsOnlyKeys("lost1", "lost2");
        }
    }

    @Test
    void anOpenAiBatchRefusedAsAWholeEndsWithNoResults() throws Exception {
        ProviderSettings provider = provider(ProviderType.OPENAI, new Behaviour());
        ProviderBatches client = ProviderBatches.of(provider);

        Batch created = client.create("own-dup", requests(provider, "dup", "dup"));
        Batch failed = client.retrieve(created.id());

        assertThat(failed.stage()).isEqualTo(Stage.ENDED);
        assertThat(failed.providerStatus()).isEqualTo("failed");
        assertThat(results(client, failed)).isEmpty();
        assertThat(standIn.stats().batchBilled()).isZero();
    }

    @ParameterizedTest
    @EnumSource(ProviderType.class)
    void a429CarriesItsRetryAfterAndNoFailureQuotesABodyOrTheKey(ProviderType type) throws Exception {
        ProviderSettings provider = provider(type, new Behaviour().refuseNextBatchCalls(1));
        ProviderBatches client = ProviderBatches.of(provider);

        Failed refused = catchThrowableOfType(() -> client.list(null, 5), Failed.class);

        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.retryAfter()).contains(Duration.ofSeconds(7));
        assertThat(refused.getMessage()).contains("429").doesNotContain(Fixtures.KEY);

        Failed missing = catchThrowableOfType(() -> client.retrieve("no-such-batch"), Failed.class);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.retryAfter()).isEmpty();

    }

    @Test
    void aRefusedCreateIsNamedByItsStatusAndErrorTypeWithoutRepeatingTheProvidersWords() throws Exception {
        ProviderSettings provider = provider(ProviderType.ANTHROPIC, new Behaviour());
        ProviderBatches client = ProviderBatches.of(provider);

        // Anthropic's pattern refuses this custom_id, and the stand-in's error quotes it, as a provider's may.
        Failed refused = catchThrowableOfType(() -> client.create(null,
                List.of(request(provider, "secret:policy-text", Fixtures.conflict()))), Failed.class);

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.getMessage()).contains("invalid_request_error").doesNotContain("secret")
                .doesNotContain(Fixtures.KEY);
    }

    @ParameterizedTest
    @EnumSource(ProviderType.class)
    void anotherKeyIsRefusedWithItsStatus(ProviderType type) throws Exception {
        ProviderSettings provider = provider(type, new Behaviour());
        provider.setApiKey("another-key-123");

        Failed refused = catchThrowableOfType(() -> ProviderBatches.of(provider).list(null, 5), Failed.class);

        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.getMessage()).doesNotContain("another-key-123");
    }
}
