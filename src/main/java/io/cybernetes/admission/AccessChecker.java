package io.cybernetes.admission;

/**
 * Asks the server's authorizer whether a user may do something, for plugins that decide by it
 * (Kubernetes' plugins that want an authorizer): may this user {@code approve} or {@code sign}
 * for a signer, say.
 */
public interface AccessChecker {

    /** Whether the user is allowed the verb on the resource of the group, by that name (cluster-wide). */
    boolean allowed(Attributes.User user, String verb, String group, String resource, String name);
}
