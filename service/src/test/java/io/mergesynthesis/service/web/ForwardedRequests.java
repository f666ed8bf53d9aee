package io.mergesynthesis.service.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.testing.TestApp;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Requests as a reverse proxy would forward them: with or without X-Forwarded-Proto. */
final class ForwardedRequests {

    private static final Pattern SIGN_IN_VALUE = Pattern.compile("name=\"sign_in\" value=\"([^\"]+)\"");

    private ForwardedRequests() {
    }

    static HttpResponse<String> get(TestApp app, String path, String forwardedProto) {
        HttpRequest.Builder request = HttpRequest.newBuilder(app.uri(path)).GET();
        if (forwardedProto != null) {
            request.header("X-Forwarded-Proto", forwardedProto);
        }
        return app.send(request.build());
    }

    static HttpResponse<String> signIn(TestApp app, HttpResponse<String> form, String forwardedProto) {
        Matcher value = SIGN_IN_VALUE.matcher(form.body());
        assertThat(value.find()).isTrue();
        String token = app.token(Role.ORG_ADMIN, UUID.randomUUID());
        return app.send(HttpRequest.newBuilder(app.uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", SessionCookies.SIGN_IN + "=" + value.group(1))
                .header("X-Forwarded-Proto", forwardedProto)
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)
                        + "&sign_in=" + value.group(1)))
                .build());
    }

    static String cookie(HttpResponse<String> response, String name) {
        return response.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(name + "=")).findFirst().orElseThrow();
    }
}
