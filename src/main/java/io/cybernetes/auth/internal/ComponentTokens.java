package io.cybernetes.auth.internal;

import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.auth.UserInfo;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tokens of the components running in this process: 256 random bits each, made on first
 * request, held only in memory (a restart makes new ones), mapped to the component's
 * user and groups.
 */
final class ComponentTokens implements InProcessCredentials {

    private final SecureRandom random = new SecureRandom();
    private final Map<String, String> byIdentity = new ConcurrentHashMap<>();
    private final Map<String, UserInfo> byToken = new ConcurrentHashMap<>();

    @Override
    public String tokenFor(String user, List<String> groups) {
        if (user == null || user.isEmpty()) {
            throw new IllegalArgumentException("a component needs a user name");
        }
        return byIdentity.computeIfAbsent(user + "\n" + String.join(",", groups), k -> {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            byToken.put(token, UserInfo.authenticated(user, "", groups));
            return token;
        });
    }

    Optional<UserInfo> authenticate(String token) {
        return Optional.ofNullable(byToken.get(token));
    }
}
