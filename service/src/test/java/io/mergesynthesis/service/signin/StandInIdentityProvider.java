package io.mergesynthesis.service.signin;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A small OpenID Connect provider on a loopback port, for the refusal cases a real provider will not produce on
 * request: it serves discovery, a key set the test can change, and a token endpoint that hands out whatever ID
 * token the test signed for a code, once, to the PKCE verifier whose S256 challenge came with it. The browser
 * tests use a real Keycloak; this stands in where a test needs a token of another audience, issuer, key or nonce.
 */
final class StandInIdentityProvider implements AutoCloseable {

    static final String CLIENT_ID = "console";
    static final String CLIENT_SECRET = "stand-in-secret";

    private final HttpServer server;
    private final Map<String, Issued> codes = new ConcurrentHashMap<>();
    private final AtomicInteger keyFetches = new AtomicInteger();
    private volatile JWKSet published;

    private record Issued(String challenge, String idToken) {
    }

    private StandInIdentityProvider(HttpServer server) {
        this.server = server;
    }

    static StandInIdentityProvider start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            StandInIdentityProvider provider = new StandInIdentityProvider(server);
            server.createContext("/.well-known/openid-configuration", provider::discovery);
            server.createContext("/jwks", provider::keys);
            server.createContext("/token", provider::token);
            server.start();
            return provider;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    static RSAKey newKey(String kid) {
        try {
            return new RSAKeyGenerator(2048).keyID(kid).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The keys the key set shows from now on (their public halves). */
    void publish(RSAKey... keys) {
        published = new JWKSet(Arrays.stream(keys).map(k -> (com.nimbusds.jose.jwk.JWK) k.toPublicJWK()).toList());
    }

    int keyFetches() {
        return keyFetches.get();
    }

    /** A code that the token endpoint exchanges, once, for {@code idToken}, given the verifier of {@code challenge}. */
    void issue(String code, String challenge, String idToken) {
        codes.put(code, new Issued(challenge, idToken));
    }

    static String sign(RSAKey key, JWTClaimsSet claims) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
                    claims);
            jwt.sign(new RSASSASigner(key));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    private void discovery(HttpExchange exchange) throws IOException {
        String base = issuer();
        answer(exchange, 200, "{\"issuer\":\"" + base + "\",\"authorization_endpoint\":\"" + base + "/authorize\","
                + "\"token_endpoint\":\"" + base + "/token\",\"jwks_uri\":\"" + base + "/jwks\","
                + "\"end_session_endpoint\":\"" + base + "/logout\",\"response_types_supported\":[\"code\"],"
                + "\"subject_types_supported\":[\"public\"],\"id_token_signing_alg_values_supported\":[\"RS256\"],"
                + "\"code_challenge_methods_supported\":[\"S256\"]}");
    }

    private void keys(HttpExchange exchange) throws IOException {
        keyFetches.incrementAndGet();
        answer(exchange, 200, published.toString());
    }

    private void token(HttpExchange exchange) throws IOException {
        String expected = "Basic " + Base64.getEncoder().encodeToString((CLIENT_ID + ":" + CLIENT_SECRET)
                .getBytes(StandardCharsets.UTF_8));
        if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            answer(exchange, 401, "{\"error\":\"invalid_client\"}");
            return;
        }
        Map<String, String> form = Arrays.stream(new String(exchange.getRequestBody().readAllBytes(),
                        StandardCharsets.UTF_8).split("&"))
                .map(pair -> pair.split("=", 2))
                .collect(Collectors.toMap(p -> decode(p[0]), p -> p.length > 1 ? decode(p[1]) : ""));
        Issued issued = codes.remove(form.getOrDefault("code", ""));
        if (issued == null || !issued.challenge().equals(s256(form.getOrDefault("code_verifier", "")))) {
            answer(exchange, 400, "{\"error\":\"invalid_grant\"}");
            return;
        }
        answer(exchange, 200, "{\"access_token\":\"stand-in-access\",\"token_type\":\"Bearer\",\"expires_in\":300,"
                + "\"id_token\":\"" + issued.idToken() + "\"}");
    }

    static String s256(String verifier) {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(verifier.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().put("Content-Type", List.of("application/json"));
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
