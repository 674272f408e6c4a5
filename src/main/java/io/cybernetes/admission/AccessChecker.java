package io.cybernetes.admission;

/**
 * Asks the server's authorizer whether a user may do something, for plugins that decide by it
 * (Kubernetes' plugins that want an authorizer): may this user {@code approve} or {@code sign}
 * for a signer, say, or what a policy's {@code authorizer} variable asks.
 */
public interface AccessChecker {

    /** The authorizers' answer: allowed or not, with the reason they gave and the error, if one kept them from answering. */
    record Verdict(boolean allowed, String reason, String error) {

        public Verdict(boolean allowed, String reason) {
            this(allowed, reason, "");
        }
    }

    /** The answer for the verb on a resource (group, resource, subresource; a namespace, or none: cluster-wide; a name, or none). */
    default Verdict check(Attributes.User user, String verb, String group, String resource, String subresource,
                          String namespace, String name) {
        return check(user, verb, group, resource, subresource, namespace, name, "", "");
    }

    /**
     * As {@link #check(Attributes.User, String, String, String, String, String, String)}, about only the objects a
     * field selector and a label selector pick ({@code spec.nodeName=node-1}; empty: no selector). A selector that
     * does not parse is left out, which asks about more objects, never fewer.
     */
    Verdict check(Attributes.User user, String verb, String group, String resource, String subresource,
                  String namespace, String name, String fieldSelector, String labelSelector);

    /** The answer for the verb (an HTTP method in lower case) on a non-resource path. */
    Verdict checkPath(Attributes.User user, String verb, String path);

    /** Whether the user is allowed the verb on the resource of the group, by that name (cluster-wide). */
    default boolean allowed(Attributes.User user, String verb, String group, String resource, String name) {
        return check(user, verb, group, resource, "", "", name).allowed();
    }
}
