package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** One page of the inbox; {@code next_cursor} is null on the last page. */
public record ConflictPage(
        @JsonProperty("conflicts") List<ConflictView> conflicts,
        @JsonProperty("next_cursor") @JsonInclude(JsonInclude.Include.ALWAYS) String nextCursor) {
}
