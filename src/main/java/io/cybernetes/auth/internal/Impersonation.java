package io.cybernetes.auth.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import jakarta.servlet.http.HttpServletRequest;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Kubernetes' user impersonation ({@code kubectl --as}, {@code --as-group}, {@code --as-uid},
 * and authenticating proxies): the {@code Impersonate-User}, {@code Impersonate-Group},
 * {@code Impersonate-Uid} and {@code Impersonate-Extra-<key>} headers. Each thing asked
 * for is authorized first, as the verb {@code impersonate} on {@code users},
 * {@code serviceaccounts} (a {@code system:serviceaccount:<ns>:<name>} user), {@code groups},
 * {@code uids} or {@code userextras/<key>}; the first refusal is the request's 403. Then
 * the request runs as the impersonated user, who is {@code system:authenticated} unless
 * the groups asked for say otherwise.
 */
final class Impersonation {

    static final String USER = "Impersonate-User";
    static final String GROUP = "Impersonate-Group";
    static final String UID = "Impersonate-Uid";
    static final String EXTRA_PREFIX = "impersonate-extra-";

    private final Authorizer authorizer;

    Impersonation(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** One thing the requester asks to act as, and how RBAC names it. */
    private record Wanted(String resource, String subresource, String namespace, String name, String description) {
    }

    /**
     * The user the request is to run as, or empty when it asks for no impersonation.
     *
     * @throws ApiException 403 for the first thing the requester may not impersonate; 500 (as
     *                      kube-apiserver answers) for groups, extras or a uid without a user
     */
    Optional<UserInfo> impersonate(HttpServletRequest request, UserInfo requester) {
        String userName = request.getHeader(USER);
        List<String> groupHeaders = Collections.list(request.getHeaders(GROUP));
        String uid = request.getHeader(UID);
        Map<String, List<String>> extra = extras(request);
        boolean hasUser = userName != null && !userName.isEmpty();
        boolean hasUid = uid != null && !uid.isEmpty();
        if (!hasUser && groupHeaders.isEmpty() && extra.isEmpty() && !hasUid) {
            return Optional.empty();
        }

        List<Wanted> wanted = new ArrayList<>();
        List<String> groups = new ArrayList<>();
        String[] serviceAccount = hasUser ? serviceAccount(userName) : null;
        if (serviceAccount != null) {
            wanted.add(new Wanted("serviceaccounts", "", serviceAccount[0], serviceAccount[1],
                    "ServiceAccount " + serviceAccount[0] + "/" + serviceAccount[1]));
            if (groupHeaders.isEmpty()) {
                groups.add(UserInfo.SERVICE_ACCOUNTS);
                groups.add(UserInfo.SERVICE_ACCOUNTS + ":" + serviceAccount[0]);
            }
        } else if (hasUser) {
            wanted.add(new Wanted("users", "", "", userName, "User " + userName));
        }
        for (String g : groupHeaders) {
            wanted.add(new Wanted("groups", "", "", g, "Group " + g));
            groups.add(g);
        }
        extra.forEach((key, values) -> values.forEach(v ->
                wanted.add(new Wanted("userextras", key, "", v, "UserExtra " + key + "=" + v))));
        if (hasUid) {
            wanted.add(new Wanted("uids", "", "", uid, "UID " + uid));
        }
        if (!hasUser) {
            throw ApiException.internal("requested [" + wanted.stream().map(Wanted::description)
                    .collect(Collectors.joining(", ")) + "] without impersonating a user");
        }

        for (Wanted w : wanted) {
            String group = w.resource().equals("userextras") || w.resource().equals("uids") ? "authentication.k8s.io" : "";
            RequestAttributes attrs = RequestAttributes.resource(requester, "impersonate", group, w.resource(),
                    w.subresource(), w.namespace(), w.name());
            Authorizer.Decision d = authorizer.authorize(attrs);
            if (!d.allowed()) {
                throw Authorizer.forbidden(attrs, d.reason());
            }
        }

        if (userName.equals(UserInfo.ANONYMOUS)) {
            if (!groups.contains(UserInfo.UNAUTHENTICATED)) {
                groups.add(UserInfo.UNAUTHENTICATED);
            }
        } else if (!groups.contains(UserInfo.AUTHENTICATED) && !groups.contains(UserInfo.UNAUTHENTICATED)) {
            groups.add(UserInfo.AUTHENTICATED);
        }
        return Optional.of(new UserInfo(userName, hasUid ? uid : "", groups, extra));
    }

    /** {@code [namespace, name]} when the user name is a ServiceAccount's, else null. */
    private static String[] serviceAccount(String userName) {
        if (!userName.startsWith(UserInfo.SERVICE_ACCOUNT_PREFIX)) {
            return null;
        }
        String[] parts = userName.substring(UserInfo.SERVICE_ACCOUNT_PREFIX.length()).split(":", -1);
        return parts.length == 2 && !parts[0].isEmpty() && !parts[1].isEmpty() ? parts : null;
    }

    /** The extras asked for, keys lower-cased and percent-decoded as kube-apiserver reads them. */
    private static Map<String, List<String>> extras(HttpServletRequest request) {
        Map<String, List<String>> extra = new LinkedHashMap<>();
        for (String header : Collections.list(request.getHeaderNames())) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith(EXTRA_PREFIX) && lower.length() > EXTRA_PREFIX.length()) {
                String key = unescape(lower.substring(EXTRA_PREFIX.length()));
                extra.computeIfAbsent(key, k -> new ArrayList<>()).addAll(Collections.list(request.getHeaders(header)));
            }
        }
        return extra;
    }

    private static String unescape(String key) {
        try {
            return URLDecoder.decode(key.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return key;
        }
    }
}
