package io.cybernetes.auth;

import java.time.Instant;
import java.util.List;

/** Issues ServiceAccount tokens: JWTs signed by the cluster's ServiceAccount key, bound to the account's uid. */
public interface ServiceAccountTokens {

    /** The shortest lifetime a token may be asked for, as in Kubernetes (10 minutes). */
    long MIN_EXPIRATION_SECONDS = 600;

    /** The lifetime when a TokenRequest names none. */
    long DEFAULT_EXPIRATION_SECONDS = 3600;

    /**
     * A token for the ServiceAccount; {@code audiences} empty means the API server's own,
     * {@code expirationSeconds} is at least {@link #MIN_EXPIRATION_SECONDS} (longer than the
     * configured maximum is shortened to it).
     */
    IssuedToken issue(String namespace, String name, String uid, List<String> audiences, long expirationSeconds);

    record IssuedToken(String token, Instant expiration) {
    }

    /** The audiences a token must carry to authenticate to this API server. */
    List<String> apiAudiences();
}
