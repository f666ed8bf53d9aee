package io.mergesynthesis.service.signin;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.oauth2.sdk.AuthorizationCode;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.GeneralException;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.id.Issuer;
import com.nimbusds.oauth2.sdk.id.State;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.nimbusds.openid.connect.sdk.AuthenticationRequest;
import com.nimbusds.openid.connect.sdk.LogoutRequest;
import com.nimbusds.openid.connect.sdk.Nonce;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponse;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponseParser;
import com.nimbusds.openid.connect.sdk.op.OIDCProviderMetadata;
import com.nimbusds.openid.connect.sdk.validators.IDTokenValidator;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The company's identity provider, spoken to with Nimbus's OpenID Connect SDK (docs/adr/0071): discovery from
 * {@code {issuer}/.well-known/openid-configuration}, the authorization request (code flow, PKCE S256, state and
 * nonce), the code exchange with the client secret, and the ID token's check: signature against the issuer's JWKS
 * (fetched, kept, fetched again when a token names a key it does not know), issuer, audience, expiry and nonce,
 * with a bounded clock skew.
 *
 * <p>Discovery waits for the first sign-in and is kept once it succeeds: a provider that is down when the service
 * starts costs a failed sign-in, not a failed start. The client secret and the tokens are never logged.
 */
public final class IdentityProvider {

    /** How long each call to the provider may take to connect, and to answer. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The shortest time between two fetches of the key set: a token naming an unknown key fetches it again (a
     * rotation), but a flood of made-up key ids costs the provider one fetch per interval at most.
     */
    static final Duration KEY_REFETCH_INTERVAL = Duration.ofSeconds(30);

    private final Issuer issuer;
    private final ClientID clientId;
    private final Secret clientSecret;
    private final URI callback;
    private final Duration clockSkew;
    private final Duration keyRefetchInterval;
    private volatile Discovered discovered;

    private record Discovered(OIDCProviderMetadata metadata, IDTokenValidator validator,
                              JWKSource<SecurityContext> keys, JWSAlgorithm algorithm) {
    }

    public IdentityProvider(String issuer, String clientId, String clientSecret, URI callback, Duration clockSkew) {
        this(issuer, clientId, clientSecret, callback, clockSkew, KEY_REFETCH_INTERVAL);
    }

    IdentityProvider(String issuer, String clientId, String clientSecret, URI callback, Duration clockSkew,
                     Duration keyRefetchInterval) {
        this.keyRefetchInterval = keyRefetchInterval;
        this.issuer = new Issuer(issuer);
        this.clientId = new ClientID(clientId);
        this.clientSecret = new Secret(clientSecret);
        this.callback = callback;
        this.clockSkew = clockSkew;
    }

    /** The issuer's scheme, host and port: where the browser is sent to sign in and out. */
    public String origin() {
        URI uri = URI.create(issuer.getValue());
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    }

    /** Where the person is sent to sign in, carrying this sign-in's state, nonce and code challenge. */
    public URI authorizationRequest(ProviderSignIn signIn) throws ProviderUnavailable {
        OIDCProviderMetadata metadata = discovered().metadata();
        return new AuthenticationRequest.Builder(ResponseType.CODE, new Scope("openid", "email", "profile"),
                clientId, callback)
                .endpointURI(metadata.getAuthorizationEndpointURI())
                .state(new State(signIn.state()))
                .nonce(new Nonce(signIn.nonce()))
                .codeChallenge(new CodeVerifier(signIn.verifier()), CodeChallengeMethod.S256)
                .build()
                .toURI();
    }

    /** A verified ID token: its claims, and the token itself for the provider's sign-out later. */
    public record VerifiedSignIn(Map<String, Object> claims, String idToken) {
    }

    /**
     * Exchanges {@code code} for tokens and checks the ID token against {@code signIn}'s nonce.
     *
     * @throws SignInRefused when the provider refuses the code (used, expired, another client's) or the ID token
     *                       fails a check; the message says which, and holds no token
     */
    public VerifiedSignIn finish(String code, ProviderSignIn signIn) throws ProviderUnavailable, SignInRefused {
        Discovered provider = discovered();
        TokenRequest request = new TokenRequest(provider.metadata().getTokenEndpointURI(),
                new ClientSecretBasic(clientId, clientSecret),
                new AuthorizationCodeGrant(new AuthorizationCode(code), callback, new CodeVerifier(signIn.verifier())));
        TokenResponse response;
        try {
            HTTPRequest http = request.toHTTPRequest();
            http.setConnectTimeout((int) CALL_TIMEOUT.toMillis());
            http.setReadTimeout((int) CALL_TIMEOUT.toMillis());
            response = OIDCTokenResponseParser.parse(http.send());
        } catch (IOException | ParseException e) {
            throw new ProviderUnavailable("the identity provider's token endpoint did not answer as expected ("
                    + e.getClass().getSimpleName() + ")", e);
        }
        if (!response.indicatesSuccess()) {
            ErrorObject error = response.toErrorResponse().getErrorObject();
            throw new SignInRefused("the identity provider refused the sign-in code ("
                    + (error.getCode() == null ? "HTTP " + error.getHTTPStatusCode() : error.getCode()) + ")");
        }
        JWT idToken = ((OIDCTokenResponse) response.toSuccessResponse()).getOIDCTokens().getIDToken();
        if (idToken == null) {
            throw new SignInRefused("the identity provider's answer holds no ID token");
        }
        try {
            var claims = provider.validator().validate(idToken, new Nonce(signIn.nonce()));
            return new VerifiedSignIn(claims.toJSONObject(), idToken.serialize());
        } catch (BadJOSEException | JOSEException e) {
            // Nimbus's message says which check failed (signature, issuer, audience, expiry, nonce); no token in it.
            throw new SignInRefused("the ID token did not pass its checks: " + e.getMessage());
        }
    }

    /**
     * Where to send the browser to end its session at the provider too, when discovery offers an
     * {@code end_session_endpoint}; empty when it does not (or the provider cannot be reached now).
     */
    public Optional<URI> signOut(String idToken, URI afterwards) {
        try {
            URI endpoint = discovered().metadata().getEndSessionEndpointURI();
            if (endpoint == null) {
                return Optional.empty();
            }
            JWT hint = idToken == null ? null : com.nimbusds.jwt.JWTParser.parse(idToken);
            return Optional.of(new LogoutRequest(endpoint, hint, afterwards, null).toURI());
        } catch (ProviderUnavailable | java.text.ParseException e) {
            return Optional.empty();
        }
    }

    /**
     * The claims of an access token this issuer signed for {@code audience} (a machine's, from the client
     * credentials grant): signature against the same key set as ID tokens, issuer, audience and expiry, with the
     * same skew. Empty for anything else, a token this issuer did not sign included.
     */
    public Optional<Map<String, Object>> accessTokenClaims(String token, String audience) throws ProviderUnavailable {
        Discovered provider = discovered();
        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        // Keycloak and others type access tokens "at+jwt" or "JWT", or leave the type out.
        processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT,
                new JOSEObjectType("at+jwt"), null));
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(provider.algorithm(), provider.keys()));
        DefaultJWTClaimsVerifier<SecurityContext> verifier = new DefaultJWTClaimsVerifier<>(audience,
                new JWTClaimsSet.Builder().issuer(provider.metadata().getIssuer().getValue()).build(),
                java.util.Set.of("sub", "exp"));
        verifier.setMaxClockSkew((int) clockSkew.toSeconds());
        processor.setJWTClaimsSetVerifier(verifier);
        try {
            return Optional.of(processor.process(token, null).toJSONObject());
        } catch (java.text.ParseException | BadJOSEException | JOSEException e) {
            return Optional.empty();
        }
    }

    private Discovered discovered() throws ProviderUnavailable {
        Discovered known = discovered;
        if (known != null) {
            return known;
        }
        synchronized (this) {
            if (discovered == null) {
                discovered = discover();
            }
            return discovered;
        }
    }

    private Discovered discover() throws ProviderUnavailable {
        try {
            OIDCProviderMetadata metadata = OIDCProviderMetadata.resolve(issuer,
                    (int) CALL_TIMEOUT.toMillis(), (int) CALL_TIMEOUT.toMillis());
            URL jwks = metadata.getJWKSetURI().toURL();
            // Keys are kept and fetched again when a token names an unknown key id (a rotation), at most once
            // every keyRefetchInterval; a provider that is briefly unreachable is retried once.
            JWKSource<SecurityContext> keys = JWKSourceBuilder.create(jwks, new DefaultResourceRetriever(
                            (int) CALL_TIMEOUT.toMillis(), (int) CALL_TIMEOUT.toMillis()))
                    .rateLimited(keyRefetchInterval.toMillis())
                    .retrying(true)
                    .build();
            JWSAlgorithm algorithm = metadata.getIDTokenJWSAlgs() != null
                    && !metadata.getIDTokenJWSAlgs().isEmpty()
                    && !metadata.getIDTokenJWSAlgs().contains(JWSAlgorithm.RS256)
                    ? metadata.getIDTokenJWSAlgs().get(0) : JWSAlgorithm.RS256;
            IDTokenValidator validator = new IDTokenValidator(metadata.getIssuer(), clientId,
                    new JWSVerificationKeySelector<>(algorithm, keys), null);
            validator.setMaxClockSkew((int) clockSkew.toSeconds());
            return new Discovered(metadata, validator, keys, algorithm);
        } catch (GeneralException | IOException e) {
            throw new ProviderUnavailable("the identity provider " + issuer + " could not be discovered ("
                    + e.getMessage() + ")", e);
        }
    }

    /** The provider could not be reached or answered nonsense: try again later. */
    public static final class ProviderUnavailable extends Exception {
        ProviderUnavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The sign-in failed a check; the message says which. */
    public static final class SignInRefused extends Exception {
        public SignInRefused(String message) {
            super(message);
        }
    }
}
