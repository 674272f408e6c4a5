package io.cybernetes.api;

import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An error that reaches the client as a Kubernetes {@code Status}: the code, the
 * machine-readable reason and the message a person reads. Built through the
 * factories below so that every module words its errors as Kubernetes does.
 */
public final class ApiException extends RuntimeException {

    private final int code;
    private final String reason;
    private final StatusDetails details;
    private final Integer retryAfterSeconds;

    private ApiException(int code, String reason, String message, StatusDetails details, Integer retryAfterSeconds) {
        super(message);
        this.code = code;
        this.reason = reason;
        this.details = details;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public int code() {
        return code;
    }

    public String reason() {
        return reason;
    }

    public Integer retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /**
     * The {@code Status} as kube-apiserver writes it: its fields in Go's order (kind,
     * apiVersion, metadata, status, message, reason, details, code), empty ones left out as
     * {@code omitempty} leaves them, the core group's empty {@code group} among them.
     */
    public ObjectNode toJson() {
        ObjectNode o = Json.object();
        o.put("kind", "Status");
        o.put("apiVersion", "v1");
        o.putObject("metadata");
        o.put("status", "Failure");
        putIfPresent(o, "message", getMessage());
        putIfPresent(o, "reason", reason);
        if (details != null || (retryAfterSeconds != null && retryAfterSeconds > 0)) {
            ObjectNode d = o.putObject("details");
            if (details != null) {
                putIfPresent(d, "name", details.getName());
                putIfPresent(d, "group", details.getGroup());
                putIfPresent(d, "kind", details.getKind());
                putIfPresent(d, "uid", details.getUid());
                if (details.getCauses() != null && !details.getCauses().isEmpty()) {
                    ArrayNode causes = d.putArray("causes");
                    for (StatusCause c : details.getCauses()) {
                        ObjectNode cause = causes.addObject();
                        putIfPresent(cause, "reason", c.getReason());
                        putIfPresent(cause, "message", c.getMessage());
                        putIfPresent(cause, "field", c.getField());
                    }
                }
            }
            if (retryAfterSeconds != null && retryAfterSeconds > 0) {
                d.put("retryAfterSeconds", retryAfterSeconds);
            }
        }
        o.put("code", code);
        return o;
    }

    /** {@link #toJson()} as a response body: the JSON and a newline, as Go's encoder ends every value. */
    public byte[] toBytes() {
        return (Json.write(toJson()) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void putIfPresent(ObjectNode o, String field, String value) {
        if (value != null && !value.isEmpty()) {
            o.put(field, value);
        }
    }

    private static StatusDetails details(String group, String kind, String name) {
        StatusDetails d = new StatusDetails();
        d.setGroup(group);
        d.setKind(kind);
        d.setName(name);
        return d;
    }

    /** A Status with the code and reason given, for answers relayed from elsewhere (an admission webhook). */
    public static ApiException of(int code, String reason, String message) {
        return new ApiException(code, reason, message, null, null);
    }

    public static ApiException badRequest(String message) {
        return new ApiException(400, "BadRequest", message, null, null);
    }

    public static ApiException unauthorized() {
        return new ApiException(401, "Unauthorized", "Unauthorized", null, null);
    }

    public static ApiException forbidden(String message) {
        return new ApiException(403, "Forbidden", message, null, null);
    }

    /**
     * 403 on a resource, worded as Kubernetes words it:
     * {@code pods "x" is forbidden: <why>} or {@code deployments.apps is forbidden: <why>}.
     */
    public static ApiException forbidden(String group, String resource, String name, String why) {
        String groupResource = group.isEmpty() ? resource : resource + "." + group;
        String msg = (name == null || name.isEmpty() ? groupResource : groupResource + " \"" + name + "\"")
                + " is forbidden: " + why;
        return new ApiException(403, "Forbidden", msg, details(group, resource, name), null);
    }

    public static ApiException notFound(ResourceType type, String name) {
        return notFound(type.group(), type.plural(), name);
    }

    /** 404 for a resource named as its server names it ({@code podmetrics} in {@code metrics.k8s.io}). */
    public static ApiException notFound(String group, String resource, String name) {
        return new ApiException(404, "NotFound", (group.isEmpty() ? resource : resource + "." + group) + " \"" + name
                + "\" not found", details(group, resource, name), null);
    }

    /**
     * 404 for a path this server does not serve (an unknown resource, subresource or group),
     * as kube-apiserver words it, with the empty {@code details} it sends (kubectl reads them).
     */
    public static ApiException pathNotFound() {
        return new ApiException(404, "NotFound", "the server could not find the requested resource",
                new StatusDetails(), null);
    }

    public static ApiException notFound(String message) {
        return new ApiException(404, "NotFound", message, null, null);
    }

    public static ApiException methodNotAllowed() {
        return methodNotAllowed("the server does not allow this method on the requested resource");
    }

    public static ApiException methodNotAllowed(String message) {
        return new ApiException(405, "MethodNotAllowed", message, null, null);
    }

    public static ApiException notAcceptable(String message) {
        return new ApiException(406, "NotAcceptable", message, null, null);
    }

    public static ApiException alreadyExists(ResourceType type, String name) {
        return new ApiException(409, "AlreadyExists", type.groupResource() + " \"" + name + "\" already exists",
                details(type.group(), type.plural(), name), null);
    }

    public static ApiException conflict(ResourceType type, String name, String why) {
        return conflict(type.group(), type.plural(), name, why);
    }

    public static ApiException conflict(String group, String resource, String name, String why) {
        String groupResource = group.isEmpty() ? resource : resource + "." + group;
        return new ApiException(409, "Conflict",
                "Operation cannot be fulfilled on " + groupResource + " \"" + name + "\": " + why,
                details(group, resource, name), null);
    }

    /** 409 for a server-side apply that would change fields other managers own: one cause per field. */
    public static ApiException applyConflict(String message, List<StatusCause> causes) {
        StatusDetails d = new StatusDetails();
        d.setCauses(causes);
        return new ApiException(409, "Conflict", message, d, null);
    }

    public static ApiException staleObject(ResourceType type, String name) {
        return conflict(type, name,
                "the object has been modified; please apply your changes to the latest version and try again");
    }

    public static ApiException gone(String message) {
        return new ApiException(410, "Expired", message, null, null);
    }

    public static ApiException entityTooLarge(long limit) {
        return new ApiException(413, "RequestEntityTooLarge", "Request entity too large: limit is " + limit, null, null);
    }

    /** 415 for a body in a format the request does not take, worded as kube-apiserver's (it names what is taken). */
    public static ApiException unsupportedMediaType(List<String> accepted) {
        return new ApiException(415, "UnsupportedMediaType", "the body of the request was in an unknown format - "
                + "accepted media types include: " + String.join(", ", accepted), null, null);
    }

    /** 415 for an object's body: JSON, YAML or Protocol Buffers. */
    public static ApiException unsupportedMediaType() {
        return unsupportedMediaType(List.of("application/json", "application/yaml",
                "application/vnd.kubernetes.protobuf"));
    }

    /** 422: the object fails validation; one cause per invalid field. */
    public static ApiException invalid(ResourceType type, String name, List<StatusCause> causes) {
        return invalid(type.group(), type.kind(), name, causes);
    }

    /** 422 for a kind that is not a served resource of its own (a TokenRequest, a Scale). */
    public static ApiException invalid(String group, String kind, String name, List<StatusCause> causes) {
        StatusDetails d = details(group, kind, name);
        d.setCauses(causes);
        String joined = causes.stream().map(c -> (c.getField() == null || c.getField().isEmpty() ? "" : c.getField() + ": ")
                + c.getMessage()).collect(Collectors.joining(", "));
        String qualifiedKind = group == null || group.isEmpty() ? kind : kind + "." + group;
        String msg = qualifiedKind + " \"" + (name == null ? "" : name) + "\" is invalid: "
                + (causes.size() == 1 ? joined : "[" + joined + "]");
        return new ApiException(422, "Invalid", msg, d, null);
    }

    /** 422 without field causes, for a request that is well-formed but cannot be carried out (a failing patch). */
    public static ApiException unprocessable(String message) {
        return new ApiException(422, "Invalid", message, null, null);
    }

    public static ApiException tooManyRequests(String message, int retryAfterSeconds) {
        return new ApiException(429, "TooManyRequests", message, null, retryAfterSeconds);
    }

    /** 429 with one cause: the request would break a limit another object sets (a disruption budget). */
    public static ApiException tooManyRequests(String message, StatusCause cause) {
        StatusDetails d = new StatusDetails();
        d.setCauses(List.of(cause));
        return new ApiException(429, "TooManyRequests", message, d, null);
    }

    public static ApiException internal(String message) {
        return new ApiException(500, "InternalError", "Internal error occurred: " + message, null, null);
    }

    public static ApiException unavailable(String message, int retryAfterSeconds) {
        return new ApiException(503, "ServiceUnavailable", message, null, retryAfterSeconds);
    }

    /**
     * 504 for a resourceVersion this server has not reached yet, as kube-apiserver's
     * {@code NewTooLargeResourceVersionError}: the ResourceVersionTooLarge cause tells
     * clients to retry after the seconds given.
     */
    public static ApiException tooLargeResourceVersion(String message, int retryAfterSeconds) {
        StatusDetails d = new StatusDetails();
        d.setCauses(List.of(cause(null, "ResourceVersionTooLarge", "Too large resource version")));
        return new ApiException(504, "Timeout", "Timeout: " + message, d, retryAfterSeconds);
    }

    public static ApiException timeout(String message, int retryAfterSeconds) {
        return new ApiException(504, "Timeout", message, null, retryAfterSeconds);
    }

    /** One 422 cause: the field path, the Kubernetes cause type (FieldValueRequired, ...) and the message. */
    public static StatusCause cause(String field, String reason, String message) {
        StatusCause c = new StatusCause();
        c.setField(field);
        c.setReason(reason);
        c.setMessage(message);
        return c;
    }
}
