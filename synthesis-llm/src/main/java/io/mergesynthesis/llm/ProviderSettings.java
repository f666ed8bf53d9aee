package io.mergesynthesis.llm;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Duration;

/**
 * One configured provider: where it is, which protocol it speaks and with which key. The key is never
 * printed: {@link #toString()} only says whether one is set, and messages name {@link #keyVariable()} instead.
 */
public final class ProviderSettings {

    private ProviderType type;
    private String baseUrl;
    private String apiKey;
    private String apiKeyVariable;
    private String anthropicVersion = "2023-06-01";
    private AnswerMode answerMode = AnswerMode.TOOL;
    private int maxConcurrency = 16;
    private int maxOutputTokens = 1024;
    private int maxAnswerBytes = 65536;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration requestTimeout = Duration.ofSeconds(30);

    public ProviderSettings() {
    }

    public ProviderSettings(ProviderType type, String baseUrl, String apiKey) {
        this.type = type;
        this.baseUrl = baseUrl;
        this.apiKey = apiKey;
    }

    /** The environment variable to name when the key is missing or refused. */
    public String keyVariable() {
        if (apiKeyVariable != null && !apiKeyVariable.isBlank()) {
            return apiKeyVariable;
        }
        return type == null ? "the provider's API key variable" : type.usualKeyVariable();
    }

    public boolean hasKey() {
        return apiKey != null && !apiKey.isBlank();
    }

    /**
     * The key, for a request header. A request is never built without one: an empty or missing key would reach
     * the provider as a malformed header or none.
     *
     * @throws IllegalStateException naming {@link #keyVariable()} when no key is set
     */
    public String requireKey() {
        if (!hasKey()) {
            throw new IllegalStateException("provider of type " + type + " has no API key: set " + keyVariable());
        }
        return apiKey;
    }

    /** The base URL without a trailing slash, so paths can be appended as they are documented. */
    public String trimmedBaseUrl() {
        String url = baseUrl == null ? "" : baseUrl.trim();
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
        return url;
    }

    public ProviderType getType() {
        return type;
    }

    public void setType(ProviderType type) {
        this.type = type;
    }

    public String getBaseUrl() {
        return baseUrl;
    }

    public void setBaseUrl(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** Read from configuration, never written back out: a dumped configuration must not carry the key. */
    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
    public String getApiKey() {
        return apiKey;
    }

    public void setApiKey(String apiKey) {
        this.apiKey = apiKey;
    }

    public String getApiKeyVariable() {
        return apiKeyVariable;
    }

    public void setApiKeyVariable(String apiKeyVariable) {
        this.apiKeyVariable = apiKeyVariable;
    }

    public String getAnthropicVersion() {
        return anthropicVersion;
    }

    public void setAnthropicVersion(String anthropicVersion) {
        this.anthropicVersion = anthropicVersion;
    }

    public AnswerMode getAnswerMode() {
        return answerMode;
    }

    public void setAnswerMode(AnswerMode answerMode) {
        this.answerMode = answerMode;
    }

    public int getMaxConcurrency() {
        return maxConcurrency;
    }

    public void setMaxConcurrency(int maxConcurrency) {
        this.maxConcurrency = maxConcurrency;
    }

    /**
     * The {@code max_tokens} of a model's calls from its first answer until its budget is learnt from its answers,
     * and the least a cut answer is asked again with ({@link AnswerBudget}).
     */
    public int getMaxOutputTokens() {
        return maxOutputTokens;
    }

    public void setMaxOutputTokens(int maxOutputTokens) {
        this.maxOutputTokens = maxOutputTokens;
    }

    public int getMaxAnswerBytes() {
        return maxAnswerBytes;
    }

    public void setMaxAnswerBytes(int maxAnswerBytes) {
        this.maxAnswerBytes = maxAnswerBytes;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    @JsonDeserialize(using = DurationText.class)
    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    @JsonDeserialize(using = DurationText.class)
    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    @Override
    public String toString() {
        return "ProviderSettings{type=" + type + ", baseUrl=" + baseUrl + ", apiKey=" + (hasKey() ? "(set)" : "(empty)")
                + ", apiKeyVariable=" + keyVariable() + ", answerMode=" + answerMode
                + ", maxConcurrency=" + maxConcurrency + ", maxOutputTokens=" + maxOutputTokens
                + ", maxAnswerBytes=" + maxAnswerBytes + ", connectTimeout=" + connectTimeout
                + ", requestTimeout=" + requestTimeout + "}";
    }
}
