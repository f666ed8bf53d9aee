package io.mergesynthesis.service.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The shapes and names the redactor removes, in the forms libraries print them; and what it leaves alone. */
class SecretRedactorTest {

    private static final String TOKEN = "msk_Zk3v9QpL2mXc8RtY1uWb7NaE4sDf6GhJ0kLzXcVbNmQ";
    private static final SecretRedactor REDACTOR = SecretRedactor.withSecrets(List.of("local",
            "custom-provider-key-0123456789"));

    @Test
    void bearerHeadersInEveryFormLoseTheirCredential() {
        assertThat(REDACTOR.redact("Authorization: Bearer " + TOKEN)).isEqualTo("Authorization: Bearer [redacted]");
        // A bare value in a map runs to the end of the map: the fields after it go with it.
        assertThat(REDACTOR.redact("HttpFields[authorization=Bearer abc.def, host=x]"))
                .isEqualTo("HttpFields[authorization=Bearer [redacted]]");
        assertThat(REDACTOR.redact("{\"x-api-key\":[\"opaque-value\"]}")).doesNotContain("opaque-value");
        assertThat(REDACTOR.redact("Proxy-Authorization: Basic dXNlcjpwYXNz"))
                .isEqualTo("Proxy-Authorization: Basic [redacted]");
        // The JDK HTTP client's header log, one header per line.
        assertThat(REDACTOR.redact("REQUEST HEADERS:\nPOST /v1/messages\n x-api-key: sk-" + "ant-api03-AbCdEf123\n"))
                .doesNotContain("AbCdEf123");
    }

    @Test
    void credentialHeadersLoseTheirWholeValueInEveryShapeLibrariesPrint() {
        String basic = "Basic " + java.util.Base64.getEncoder().encodeToString("ops:pa55-w0rd".getBytes());
        String digest = "Digest username=\"ops\", realm=\"x\", nonce=\"n1\", response=\"6629fae49393a053\"";
        String cookie = "theme=dark; msw_session=s3ssion-value; tracker=abc123def";
        String[] values = {basic, "Bearer tools-Qv8rT2mXc", digest, "opaque-key-7Hs0", cookie};
        String[] names = {"Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization", "X-Api-Key",
                "x-api-key", "Cookie", "cookie", "Set-Cookie", "X-Auth-Token"};
        for (String name : names) {
            for (String value : values) {
                String[] shapes = {
                        name + ": " + value,
                        "http-outgoing-0 >> " + name + ": " + value,
                        "REQUEST HEADERS:\nGET /x\n " + name + ": " + value + "\n host: h\n",
                        "HttpField[" + name + ": " + value + "]",
                        "parsedHeader(" + name + ": " + value + ") header=AUTHORIZATION, headerString=[" + name
                                + "], valueString=[" + value + "]",
                        "headers {" + name + "=[" + value + "], Host=[h]}",
                        "{\"" + name + "\":[\"" + value.replace("\"", "\\\"") + "\"]}",
                        "{\"" + name + "\": \"" + value.replace("\"", "\\\"") + "\", \"host\": \"h\"}",
                        "HttpFields{" + name + "=" + value + ", host=h}",
                        "http-outgoing-0 >> \"" + name + ": " + value + "[\\r][\\n]\""};
                for (String shape : shapes) {
                    String redacted = REDACTOR.redact(shape);
                    for (String part : List.of("cGE1NS13MHJk", "b3BzOnBh", "Qv8rT2mXc", "6629fae49393a053",
                            "opaque-key", "s3ssion", "abc123def", "dark")) {
                        assertThat(redacted).as(shape).doesNotContain(part);
                    }
                    assertThat(redacted).as(shape).contains(SecretRedactor.MARK);
                }
            }
        }
        assertThat(REDACTOR.redact("valueString=[" + basic + "]")).isEqualTo("valueString=[" + basic + "]");
        assertThat(REDACTOR.redact("headerString=[Authorization], valueString=[" + basic + "]"))
                .isEqualTo("headerString=[Authorization], valueString=[Basic [redacted]]");
        assertThat(REDACTOR.redact("Cookie: " + cookie)).isEqualTo("Cookie: [redacted]");
    }

    @Test
    void theIdentityProvidersCodeStateAndSignInCookieAreRemoved() {
        assertThat(REDACTOR.redact("GET /auth/callback?state=Xy1_state&session_state=s1&code=c0de.value.1 HTTP/1.1"))
                .isEqualTo("GET /auth/callback?state=[redacted]&session_state=[redacted]&code=[redacted] HTTP/1.1");
        assertThat(REDACTOR.redact("Cookie: msw_oidc=aaa.bbb.ccc")).doesNotContain("aaa.bbb.ccc");
        assertThat(REDACTOR.redact("logout?id_token_hint=eyJhbGciOi.eyJzdWIi.c2ln&post_logout_redirect_uri=x"))
                .doesNotContain("eyJ");
    }

    @Test
    void theUserAndPasswordOfAnyUrlAreRemoved() {
        assertThat(REDACTOR.redact("endpoint https://otel:s3cret-pass@collector:4318/v1/traces"))
                .isEqualTo("endpoint https://[redacted]@collector:4318/v1/traces");
        assertThat(REDACTOR.redact("url=postgresql://app:pw@db:5432/ms, other"))
                .isEqualTo("url=postgresql://[redacted]@db:5432/ms, other");
        assertThat(REDACTOR.redact("see https://collector:4318/v1/traces or ops@example.com"))
                .isEqualTo("see https://collector:4318/v1/traces or ops@example.com");
    }

    @Test
    void tokensAndProviderKeysAreRemovedByShapeAnywhere() {
        assertThat(REDACTOR.redact("token " + TOKEN + " refused")).isEqualTo("token msk_[redacted] refused");
        assertThat(REDACTOR.redact("Incorrect API key provided: sk-" + "proj-AbCdEfGhIjKlMn."))
                .isEqualTo("Incorrect API key provided: sk-[redacted].");
        assertThat(REDACTOR.redact("key sk-ant-RED...6789")).doesNotContain("RED");
        assertThat(REDACTOR.redact("calling with custom-provider-key-0123456789 now"))
                .isEqualTo("calling with [redacted] now");
    }

    @Test
    void queryParametersNamedLikeSecretsLoseTheirValues() {
        assertThat(REDACTOR.redact("GET /v1/conflicts?limit=5&access_token=abc123&api_key=zzz&cursor=c1 HTTP/1.1"))
                .isEqualTo("GET /v1/conflicts?limit=5&access_token=[redacted]&api_key=[redacted]&cursor=c1 HTTP/1.1");
        assertThat(REDACTOR.redact("/x?password=hunter2&key=k&client_secret=s"))
                .isEqualTo("/x?password=[redacted]&key=[redacted]&client_secret=[redacted]");
        assertThat(SecretRedactor.secretName("Access_Token")).isTrue();
        assertThat(SecretRedactor.secretName("limit")).isFalse();
    }

    @Test
    void jettyBufferViewsLoseTheirBytesWhereATokenTailCouldHide() {
        String dump = "filled 180 HeapByteBuffer@1[p=0,l=180,c=8192,r=180]={<<<GET /v1/conflicts HTTP/1."
                + "...lacXoukfFjH5O35gHlI\\r\\n\\r\\n>>>\\x00\\x00...\\x00} next";
        assertThat(REDACTOR.redact(dump)).isEqualTo(
                "filled 180 HeapByteBuffer@1[p=0,l=180,c=8192,r=180]={<<<[redacted]>>>} next");
    }

    @Test
    void ordinaryTextIsLeftAlone() {
        String text = "Conflict 8c04 is marked synthesis_max_attempts_exceeded after attempt 1; task-runner ok; "
                + "no Authorization header; the local provider; dedup key logs-1";
        assertThat(REDACTOR.redact(text)).isSameAs(text);
        assertThat(REDACTOR.redact(null)).isNull();
    }
}
