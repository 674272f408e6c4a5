package io.cybernetes.auth.internal;

import io.cybernetes.auth.UserInfo;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Bearer tokens: for now the admin token made at first start, compared in constant time. */
final class TokenAuthenticator {

    private final byte[] adminToken;

    TokenAuthenticator(String adminToken) {
        this.adminToken = adminToken.getBytes(StandardCharsets.UTF_8);
    }

    Optional<UserInfo> authenticate(String token) {
        if (MessageDigest.isEqual(adminToken, token.getBytes(StandardCharsets.UTF_8))) {
            return Optional.of(new UserInfo("admin", "admin", List.of(UserInfo.MASTERS, UserInfo.AUTHENTICATED),
                    Map.of()));
        }
        return Optional.empty();
    }
}
