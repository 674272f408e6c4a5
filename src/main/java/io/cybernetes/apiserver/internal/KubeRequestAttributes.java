package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.RequestInfo;
import io.cybernetes.apiserver.internal.handlers.RequestReader;
import io.cybernetes.api.ApiException;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RequestAttributesResolver;
import io.cybernetes.auth.Selectors;
import io.cybernetes.auth.UserInfo;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.stereotype.Component;

import java.util.Locale;
import java.util.function.Function;

/**
 * What a request asks, for the authorizers, as the apiserver's RequestInfoFactory: paths
 * under {@code /api/v1/...} and {@code /apis/{group}/{version}/...} are resource requests
 * whose verb follows from the method and the presence of a name (get, list, watch,
 * create, update, patch, delete, deletecollection); everything else, discovery included,
 * is a non-resource request whose verb is the method. A namespace's own requests count
 * as in that namespace, so a RoleBinding can grant reading it. A list, watch or
 * deletecollection carries its field and label selectors, and a list or watch whose field
 * selector requires one {@code metadata.name} is about that name.
 */
@Component
class KubeRequestAttributes implements RequestAttributesResolver {

    @Override
    public RequestAttributes resolve(HttpServletRequest request, UserInfo user) {
        return resolve(request.getMethod(), request.getRequestURI(), request::getParameter, user);
    }

    /**
     * The attributes of a request by method, path and its query parameters (decoded, null when absent), for
     * requests over HTTP and in-process alike.
     */
    static RequestAttributes resolve(String method, String path, Function<String, String> parameter, UserInfo user) {
        RequestAttributes a = resolve(method, path, RequestReader.isTrue(parameter.apply("watch")), user);
        if (!a.resourceRequest()) {
            return a;
        }
        return switch (a.verb()) {
            // what a list, watch or deletecollection selects is what it asks for: authorizers may judge by it
            case "list", "watch", "deletecollection" -> {
                Selectors selectors = Selectors.parse(parameter.apply("fieldSelector"),
                        parameter.apply("labelSelector"));
                RequestAttributes selecting = a.withSelectors(selectors);
                String name = a.verb().equals("deletecollection") ? null : exactName(selectors);
                // a list or watch of one name is about that object, as kube-apiserver has it: a rule's
                // resourceNames then allow `kubectl get configmap x --watch`
                yield name == null ? selecting : new RequestAttributes(user, a.verb(), true, a.apiGroup(),
                        a.apiVersion(), a.resource(), a.subresource(), a.namespace(), name, a.path(), selectors);
            }
            default -> a;
        };
    }

    /** The name a field selector requires exactly ({@code metadata.name=x}), if it is one a path could name. */
    private static String exactName(Selectors selectors) {
        for (Selectors.Requirement r : selectors.field()) {
            if (r.key().equals("metadata.name") && r.operator().equals(Selectors.IN)) {
                String name = r.values().get(0);
                boolean segment = !name.isEmpty() && !name.equals(".") && !name.equals("..")
                        && name.indexOf('/') < 0 && name.indexOf('%') < 0;
                return segment ? name : null;
            }
        }
        return null;
    }

    /** The attributes of a request by method, path and whether it asks to watch (without its selectors). */
    private static RequestAttributes resolve(String method, String path, boolean watch, UserInfo user) {
        RequestInfo info = resourceInfo(path);
        if (info == null) {
            return RequestAttributes.nonResource(user, method.toLowerCase(Locale.ROOT), path);
        }
        boolean named = info.name() != null;
        String verb = switch (method) {
            case "GET", "HEAD" -> named ? "get" : watch ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> method.toLowerCase(Locale.ROOT);
        };
        String namespace = info.namespace();
        if (info.group().isEmpty() && info.resource().equals("namespaces") && named) {
            namespace = info.name();
        }
        return new RequestAttributes(user, verb, true, info.group(), info.version(), info.resource(),
                info.subresource(), namespace, info.name(), path);
    }

    /** The resource address of a path, or null for discovery and every path outside the resource tree. */
    static RequestInfo resourceInfo(String path) {
        boolean legacy = path.startsWith("/api/");
        boolean grouped = path.startsWith("/apis/");
        if (!legacy && !grouped) {
            return null;
        }
        int depth = (int) java.util.Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).count();
        if ((legacy && depth <= 2) || (grouped && depth <= 3)) {
            return null;
        }
        try {
            return RequestInfo.parse(path);
        } catch (ApiException e) {
            return null;
        }
    }
}
