package io.mergesynthesis.service.signin;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * What a browser carries while its person is at the identity provider: the {@code state} the callback must bring
 * back, the {@code nonce} the ID token must hold, and the PKCE code verifier whose S256 challenge went with the
 * request. Kept in a short-lived HttpOnly cookie of that browser, so that any replica can finish the sign-in and a
 * callback reaching another browser (a forged or replayed one) finds no matching state there.
 */
public record ProviderSignIn(String state, String nonce, String verifier) {

    private static final SecureRandom RANDOM = new SecureRandom();

    /** Three fresh random values: 256 bits each for state and nonce, 512 for the verifier (86 characters). */
    public static ProviderSignIn fresh() {
        return new ProviderSignIn(random(32), random(32), random(64));
    }

    /** The cookie's value: the three values, base64url each, joined by dots. */
    public String cookieValue() {
        return state + "." + nonce + "." + verifier;
    }

    public static Optional<ProviderSignIn> ofCookie(String value) {
        if (value == null) {
            return Optional.empty();
        }
        String[] parts = value.split("\\.", -1);
        if (parts.length != 3 || parts[0].length() != 43 || parts[1].length() != 43 || parts[2].length() != 86) {
            return Optional.empty();
        }
        for (String part : parts) {
            if (!part.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '_')) {
                return Optional.empty();
            }
        }
        return Optional.of(new ProviderSignIn(parts[0], parts[1], parts[2]));
    }

    private static String random(int bytes) {
        byte[] value = new byte[bytes];
        RANDOM.nextBytes(value);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(value);
    }
}
