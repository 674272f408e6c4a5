package io.cybernetes.auth;

/**
 * What an authorizer decides on, as Kubernetes' authorizer.Attributes: who, which verb,
 * and either a resource (group, resource, subresource, namespace, name) or a
 * non-resource path. An empty namespace on a namespaced resource means all namespaces.
 * A list, watch or deletecollection also carries its field and label {@link Selectors}.
 */
public record RequestAttributes(UserInfo user, String verb, boolean resourceRequest, String apiGroup,
                                String apiVersion, String resource, String subresource, String namespace,
                                String name, String path, Selectors selectors) {

    /** The request attribute under which the authorization step leaves what it decided on (for audit). */
    public static final String REQUEST_ATTRIBUTE = RequestAttributes.class.getName();

    public RequestAttributes {
        apiGroup = nullToEmpty(apiGroup);
        apiVersion = nullToEmpty(apiVersion);
        resource = nullToEmpty(resource);
        subresource = nullToEmpty(subresource);
        namespace = nullToEmpty(namespace);
        name = nullToEmpty(name);
        path = nullToEmpty(path);
        selectors = selectors == null ? Selectors.NONE : selectors;
    }

    /** Attributes without selectors. */
    public RequestAttributes(UserInfo user, String verb, boolean resourceRequest, String apiGroup, String apiVersion,
                             String resource, String subresource, String namespace, String name, String path) {
        this(user, verb, resourceRequest, apiGroup, apiVersion, resource, subresource, namespace, name, path,
                Selectors.NONE);
    }

    public static RequestAttributes resource(UserInfo user, String verb, String apiGroup, String resource,
                                             String subresource, String namespace, String name) {
        return new RequestAttributes(user, verb, true, apiGroup, "*", resource, subresource, namespace, name, "");
    }

    public static RequestAttributes nonResource(UserInfo user, String verb, String path) {
        return new RequestAttributes(user, verb, false, "", "", "", "", "", "", path);
    }

    /** {@code pods} or {@code pods/status}, as RBAC rules name it. */
    public String resourceWithSubresource() {
        return subresource.isEmpty() ? resource : resource + "/" + subresource;
    }

    /** {@code pods} or {@code deployments.apps}, as Kubernetes names a resource in messages. */
    public String groupResource() {
        return apiGroup.isEmpty() ? resource : resource + "." + apiGroup;
    }

    public RequestAttributes withUser(UserInfo other) {
        return new RequestAttributes(other, verb, resourceRequest, apiGroup, apiVersion, resource, subresource,
                namespace, name, path, selectors);
    }

    public RequestAttributes withSelectors(Selectors s) {
        return new RequestAttributes(user, verb, resourceRequest, apiGroup, apiVersion, resource, subresource,
                namespace, name, path, s);
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
