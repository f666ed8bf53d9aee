package io.mergesynthesis.llm;

import java.net.http.HttpHeaders;

/**
 * What a provider answered to one request, read into the parts the synthesizer needs. Reading never fails:
 * a body that cannot be understood leaves {@link #answerText()} null and says why in {@link #unreadable()}.
 *
 * @param answerText the model's answer as JSON text (tool arguments or message text), or null
 * @param unreadable why no answer text was found, when {@code answerText} is null
 * @param error      the provider's error object, when the body held one
 * @param cut        the answer stopped at its output budget ({@code max_tokens}): whatever text it has is
 *                   unfinished, even when it happens to parse
 * @param model      the model the provider says answered, which may name a version the request did not; null
 *                   when the body does not say
 * @param usageRefused why the provider's own counts were not taken (see {@link ReportedUsage}), or null when they
 *                     were: the call is then charged by {@link Usage#worstCase} and its answer is not used
 */
public record ProviderReply(int status, HttpHeaders headers, Usage usage, String requestId, String answerText,
                     String unreadable, ProviderError error, boolean cut, String model, String usageRefused) {

    public ProviderReply(int status, HttpHeaders headers, Usage usage, String requestId, String answerText,
                         String unreadable, ProviderError error, boolean cut, String model) {
        this(status, headers, usage, requestId, answerText, unreadable, error, cut, model, null);
    }

    public ProviderReply(int status, HttpHeaders headers, Usage usage, String requestId, String answerText,
                         String unreadable, ProviderError error) {
        this(status, headers, usage, requestId, answerText, unreadable, error, false, null);
    }

    public ProviderReply(int status, HttpHeaders headers, Usage usage, String requestId, String answerText,
                         String unreadable, ProviderError error, boolean cut) {
        this(status, headers, usage, requestId, answerText, unreadable, error, cut, null);
    }

    /** The same reply charged {@code charged} instead of what it says it used. */
    ProviderReply charged(Usage charged) {
        return new ProviderReply(status, headers, charged, requestId, answerText, unreadable, error, cut, model,
                usageRefused);
    }

    boolean isSuccess() {
        return status >= 200 && status < 300;
    }

    /**
     * The provider's error fields, as both protocols nest them under {@code error}. The message can quote
     * request details (OpenAI quotes part of a refused key), so it is only ever shown scrubbed.
     */
    public record ProviderError(String type, String code, String message) {

        public static final ProviderError NONE = new ProviderError("", "", "");

        /** Reads {@code error.type}, {@code error.code} and {@code error.message}; missing parts are empty. */
        public static ProviderError from(com.fasterxml.jackson.databind.JsonNode body) {
            com.fasterxml.jackson.databind.JsonNode error = body == null ? null : body.get("error");
            if (error == null || !error.isObject()) {
                return NONE;
            }
            return new ProviderError(error.path("type").asText(""), error.path("code").asText(""),
                    error.path("message").asText(""));
        }

        boolean mentions(String word) {
            return type.contains(word) || code.contains(word);
        }
    }
}
