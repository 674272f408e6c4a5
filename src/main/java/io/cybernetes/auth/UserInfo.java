package io.cybernetes.auth;

import java.util.List;
import java.util.Map;

/** An authenticated identity, as Kubernetes' user.Info. */
public record UserInfo(String name, String uid, List<String> groups, Map<String, List<String>> extra) {

    public static final String AUTHENTICATED = "system:authenticated";
    public static final String MASTERS = "system:masters";

    /** The request attribute under which the authentication filter leaves the user. */
    public static final String REQUEST_ATTRIBUTE = UserInfo.class.getName();
}
