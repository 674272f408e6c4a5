package io.cybernetes.auth;

import java.util.Optional;

/** Turns a bearer token into the identity it stands for; empty when no authenticator accepts it. */
public interface TokenAuthenticator {

    Optional<UserInfo> authenticateToken(String token);
}
