package io.mergesynthesis.service.signin;

import java.util.Optional;

/**
 * The configured identity provider, how its claims make a person of the console, and, when a machine audience is
 * configured, how its access tokens make a machine caller of the API.
 */
public record SignInWithProvider(IdentityProvider provider, ClaimsMapping claims, Optional<MachineTokens> machines) {
}
