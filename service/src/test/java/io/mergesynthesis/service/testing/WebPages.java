package io.mergesynthesis.service.testing;

import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The web inbox's pages as a browser fetches them, for tests that read what a person sees without a browser. */
public final class WebPages {

    /** The inbox's cookie names; a test that reads them from the inbox's code would pass whatever they were. */
    private static final String SESSION = "msw_session";
    private static final String SIGN_IN = "msw_sign_in";
    private static final Pattern SIGN_IN_VALUE = Pattern.compile("name=\"sign_in\" value=\"([^\"]+)\"");

    private final TestApp app;
    private final String session;

    private WebPages(TestApp app, String session) {
        this.app = app;
        this.session = session;
    }

    /** Signs in with {@code token} through the sign-in form, as a browser does. */
    public static WebPages signIn(TestApp app, String token) {
        HttpResponse<String> form = app.send(HttpRequest.newBuilder(app.uri("/sign-in")).GET().build());
        Matcher value = SIGN_IN_VALUE.matcher(form.body());
        if (!value.find()) {
            throw new AssertionError("no sign-in form in " + form.body());
        }
        HttpResponse<String> signedIn = app.send(HttpRequest.newBuilder(app.uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", SIGN_IN + "=" + value.group(1))
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)
                        + "&sign_in=" + value.group(1))).build());
        String cookie = signedIn.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(SESSION + "=")).findFirst()
                .orElseThrow(() -> new AssertionError("sign-in answered " + signedIn.statusCode()));
        return new WebPages(app, cookie.substring(SESSION.length() + 1, cookie.indexOf(';')));
    }

    /** The answer to GET {@code path} with this session's cookie, whatever its status. */
    public HttpResponse<String> answer(String path) {
        return app.send(HttpRequest.newBuilder(app.uri(path)).header("Cookie", SESSION + "=" + session).GET().build());
    }

    /** The page at {@code path}, as HTML. */
    public String page(String path) {
        HttpResponse<String> page = app.send(HttpRequest.newBuilder(app.uri(path))
                .header("Cookie", SESSION + "=" + session).GET().build());
        if (page.statusCode() != 200) {
            throw new AssertionError(path + " answered " + page.statusCode() + ": " + page.body());
        }
        return page.body();
    }
}
