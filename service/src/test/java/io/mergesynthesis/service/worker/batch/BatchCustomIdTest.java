package io.mergesynthesis.service.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A custom_id carries the batch row's id and the conflict's, within what Anthropic accepts. */
class BatchCustomIdTest {

    @Test
    void carriesBothIdsWithinAnthropicsPattern() {
        for (int i = 0; i < 1000; i++) {
            BatchCustomId id = new BatchCustomId(UUID.randomUUID(), UUID.randomUUID());

            String encoded = id.encoded();

            assertThat(encoded).matches("^[a-zA-Z0-9_-]{1,64}$");
            assertThat(BatchCustomId.decode(encoded)).contains(id);
        }
    }

    @Test
    void anotherClientsCustomIdIsNotOurs() {
        assertThat(BatchCustomId.decode("request-1")).isEmpty();
        assertThat(BatchCustomId.decode(null)).isEmpty();
        assertThat(BatchCustomId.decode("x".repeat(43) + "!")).isEmpty();
    }
}
