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
    IssuedToken issue(String namespace, String name, String uid, List<String> audiences, long expirationSeconds,
                      BoundObjects bound);

    /**
     * What a token is bound to besides its ServiceAccount, as a TokenRequest's
     * {@code boundObjectRef} names it: a pod (with the node it runs on, when it is bound to
     * one), a Secret, or a node. A bound token authenticates only while its object exists
     * with the same uid. Any part may be null; {@link #NONE} binds to nothing more.
     */
    record BoundObjects(ObjectRef pod, ObjectRef secret, ObjectRef node) {
        public static final BoundObjects NONE = new BoundObjects(null, null, null);
    }

    /** An object's name and uid, as a token's claims carry it. */
    record ObjectRef(String name, String uid) {
    }

    record IssuedToken(String token, Instant expiration) {
    }

    /** The audiences a token must carry to authenticate to this API server. */
    List<String> apiAudiences();
}
