package io.mergesynthesis.service.signin;

/** The configured identity provider and how its claims make a person of the console. */
public record SignInWithProvider(IdentityProvider provider, ClaimsMapping claims) {
}
