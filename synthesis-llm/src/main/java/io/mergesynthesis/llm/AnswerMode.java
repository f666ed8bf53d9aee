package io.mergesynthesis.llm;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How the model is asked to shape its answer. Whatever is asked, every form is accepted back: some
 * OpenAI-compatible servers ignore {@code tools} or {@code response_format} and answer in plain text.
 */
public enum AnswerMode {
    /** A forced tool (function) call whose arguments are the answer. */
    @JsonProperty("tool") TOOL,
    /** OpenAI structured output ({@code response_format: json_schema}); Anthropic falls back to text. */
    @JsonProperty("json_schema") JSON_SCHEMA,
    /** JSON asked for in the prompt alone, for servers that support neither of the above. */
    @JsonProperty("text") TEXT
}
