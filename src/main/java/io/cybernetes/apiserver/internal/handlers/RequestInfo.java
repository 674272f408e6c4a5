package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A resource request's address parsed from its path, as the apiserver's RequestInfo:
 * {@code /api/v1/namespaces/{ns}/{resource}/{name}/{subresource}} and the
 * {@code /apis/{group}/{version}/...} and cluster-scoped forms; after a {@code proxy}
 * subresource the rest of the path is the proxied path's.
 */
public record RequestInfo(String group, String version, String namespace, String resource, String name, String subresource) {

    private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

    public static RequestInfo parse(String uri) {
        List<String> parts = new ArrayList<>();
        for (String p : uri.split("/")) {
            if (!p.isEmpty()) {
                parts.add(URLDecoder.decode(p, StandardCharsets.UTF_8));
            }
        }
        String group;
        String version;
        List<String> rest;
        if (parts.size() >= 2 && parts.get(0).equals("api")) {
            group = "";
            version = parts.get(1);
            rest = parts.subList(2, parts.size());
        } else if (parts.size() >= 3 && parts.get(0).equals("apis")) {
            group = parts.get(1);
            version = parts.get(2);
            rest = parts.subList(3, parts.size());
        } else {
            throw ApiException.pathNotFound();
        }
        String namespace = null;
        List<String> cur = rest;
        if (cur.size() >= 2 && cur.get(0).equals("namespaces")
                && !(cur.size() == 3 && NAMESPACE_SUBRESOURCES.contains(cur.get(2)))) {
            if (cur.size() == 2) {
                return new RequestInfo(group, version, null, "namespaces", cur.get(1), null);
            }
            namespace = cur.get(1);
            cur = cur.subList(2, cur.size());
        }
        if (cur.size() > 3 && cur.get(2).equals("proxy")) {
            // {resource}/{name}/proxy/{path...}: the rest of the path is the proxied one
            return new RequestInfo(group, version, namespace, cur.get(0), cur.get(1), "proxy");
        }
        if (cur.isEmpty() || cur.size() > 3) {
            throw ApiException.pathNotFound();
        }
        return new RequestInfo(group, version, namespace, cur.get(0), cur.size() > 1 ? cur.get(1) : null,
                cur.size() > 2 ? cur.get(2) : null);
    }

    @Override
    public String toString() {
        return String.join("/", Arrays.asList(group, version, namespace, resource, name, subresource).stream()
                .map(String::valueOf).toList());
    }
}
