package io.cybernetes.auth;

import io.cybernetes.api.Identity;

import java.util.List;
import java.util.Map;

/** An authenticated identity, as Kubernetes' user.Info. */
public record UserInfo(String name, String uid, List<String> groups, Map<String, List<String>> extra)
        implements Identity {

    public static final String AUTHENTICATED = "system:authenticated";
    public static final String UNAUTHENTICATED = "system:unauthenticated";
    public static final String ANONYMOUS = "system:anonymous";
    public static final String MASTERS = "system:masters";
    public static final String NODES = "system:nodes";
    public static final String NODE_PREFIX = "system:node:";
    public static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";
    public static final String SERVICE_ACCOUNTS = "system:serviceaccounts";

    /** The request attribute under which the authentication filter leaves the user. */
    public static final String REQUEST_ATTRIBUTE = Identity.REQUEST_ATTRIBUTE;
    /** Where the authenticated user stays when the request impersonates another (the audit event's {@code user}). */
    public static final String IMPERSONATOR_REQUEST_ATTRIBUTE = UserInfo.class.getName() + ".impersonator";

    public UserInfo {
        uid = uid == null ? "" : uid;
        groups = List.copyOf(groups);
        extra = Map.copyOf(extra);
    }

    /** A user with its groups, plus {@code system:authenticated} as every authenticated user has. */
    public static UserInfo authenticated(String name, String uid, List<String> groups) {
        java.util.List<String> all = new java.util.ArrayList<>(groups);
        if (!all.contains(AUTHENTICATED)) {
            all.add(AUTHENTICATED);
        }
        return new UserInfo(name, uid, all, Map.of());
    }

    public static UserInfo anonymous() {
        return new UserInfo(ANONYMOUS, "", List.of(UNAUTHENTICATED), Map.of());
    }

    /** The identity of a ServiceAccount's tokens. */
    public static UserInfo serviceAccount(String namespace, String name, String uid) {
        return authenticated(SERVICE_ACCOUNT_PREFIX + namespace + ":" + name, uid,
                List.of(SERVICE_ACCOUNTS, SERVICE_ACCOUNTS + ":" + namespace));
    }

    public boolean inGroup(String group) {
        return groups.contains(group);
    }

    /** The node's name when this is a node's identity ({@code system:node:<name>} in {@code system:nodes}), else null. */
    public String nodeName() {
        return name.startsWith(NODE_PREFIX) && inGroup(NODES) ? name.substring(NODE_PREFIX.length()) : null;
    }
}
