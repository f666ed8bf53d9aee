package io.mergesynthesis.bench;

import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import io.mergesynthesis.harness.Replica;

/**
 * Signs in to the web pages the way a person does: loads the sign-in form (which sets its one-off cookie), posts
 * the token with the form's value, and keeps the session cookie the answer sets. The cookie names are the
 * product's ({@code SessionCookies}).
 */
final class WebSignIn {

    static final String SIGN_IN_COOKIE = "msw_sign_in";
    static final String SESSION_COOKIE = "msw_session";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The {@code Cookie} header value of a session opened with {@code token}. */
    String session(Replica replica, String token) throws IOException, InterruptedException {
        HttpResponse<String> form = http.send(HttpRequest.newBuilder(replica.api("/sign-in"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        String formValue = cookie(form, SIGN_IN_COOKIE).orElseThrow(() -> new IOException(
                "GET /sign-in answered " + form.statusCode() + " without the " + SIGN_IN_COOKIE + " cookie"));
        String body = "token=" + URLEncoder.encode(token, StandardCharsets.UTF_8) + "&sign_in="
                + URLEncoder.encode(formValue, StandardCharsets.UTF_8);
        HttpResponse<String> signedIn = http.send(HttpRequest.newBuilder(replica.api("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", SIGN_IN_COOKIE + "=" + formValue)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        String session = cookie(signedIn, SESSION_COOKIE).filter(v -> !v.isEmpty()).orElseThrow(() -> new IOException(
                "POST /sign-in answered " + signedIn.statusCode() + " without a session cookie"));
        return SESSION_COOKIE + "=" + session;
    }

    private static Optional<String> cookie(HttpResponse<?> response, String name) {
        for (String header : response.headers().allValues("Set-Cookie")) {
            if (header.startsWith(name + "=")) {
                int end = header.indexOf(';');
                return Optional.of(header.substring(name.length() + 1, end < 0 ? header.length() : end));
            }
        }
        return Optional.empty();
    }
}
