package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.StrictDecoder;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.FieldSelector;
import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.api.ResourceType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.List;
import java.io.InputStream;

/**
 * Reads what a resource request carries: its body (JSON, YAML or protobuf, within the
 * size limit) and its query options for writes, lists and deletes, each malformed value
 * a 400 naming it.
 */
public final class RequestReader {

    private final long maxRequestBytes;

    public RequestReader(long maxRequestBytes) {
        this.maxRequestBytes = maxRequestBytes;
    }


    public byte[] readBody(ApiCall request) throws IOException {
        long max = maxRequestBytes;
        if (request.contentLength() > max) {
            throw ApiException.entityTooLarge(max);
        }
        try (InputStream in = request.body()) {
            byte[] body = readAtMost(in, max);
            if (body.length == 0) {
                throw ApiException.badRequest("the request body is empty");
            }
            return body;
        }
    }

    /** Reads the whole stream, refusing more than {@code max} bytes, without allocating {@code max} up front. */
    private static byte[] readAtMost(InputStream in, long max) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(4096);
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
            if (out.size() > max) {
                throw ApiException.entityTooLarge(max);
            }
        }
        return out.toByteArray();
    }

    /** The request's object, {@code kind} being what the URL wants (for the words of a refusal). */
    public ObjectNode readObject(ApiCall request, String kind) throws IOException {
        return readDocument(request, kind).object();
    }

    /** An object as a request body sent it, and the fields a JSON body repeated (empty for other encodings). */
    public record Document(ObjectNode object, List<String> duplicateFields) {
    }

    public Document readDocument(ApiCall request, String kind) throws IOException {
        String ct = request.contentType();
        String mime = mediaType(ct);
        if (ct != null && !ct.isBlank() && mime.isEmpty()) {
            throw ApiException.unsupportedMediaType(); // a parameter with no type before it (";")
        }
        if (mime.equals(ProtobufBodies.MEDIA_TYPE)) {
            return new Document(ProtobufBodies.decode(readBody(request)), List.of());
        }
        boolean yaml = switch (mime) {
            case "", "application/json", "*/*" -> false;
            case "application/yaml", "application/x-yaml", "text/yaml" -> true;
            default -> throw ApiException.unsupportedMediaType();
        };
        byte[] body;
        try (InputStream in = request.body()) {
            body = readAtMost(in, maxRequestBytes);
        }
        ObjectNode object = Json.parseObject(body, yaml, kind);
        return new Document(object, yaml ? List.of() : Json.duplicateFields(body));
    }

    /** The media type of a Content-Type, without parameters, in lower case ("" when there is none). */
    public static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase();
    }

    public WriteOptions writeOptions(ApiCall request) {
        String dryRun = request.parameter("dryRun");
        if (dryRun != null && !dryRun.isEmpty() && !dryRun.equals("All")) {
            throw ApiException.badRequest("Invalid dry run value \"" + dryRun + "\": the only valid value is \"All\"");
        }
        String fv = request.parameter("fieldValidation");
        StrictDecoder.FieldValidation mode = switch (fv == null ? "" : fv) {
            case "Strict" -> StrictDecoder.FieldValidation.STRICT;
            case "Ignore" -> StrictDecoder.FieldValidation.IGNORE;
            case "", "Warn" -> StrictDecoder.FieldValidation.WARN;
            default -> throw ApiException.badRequest("fieldValidation must be one of \"Ignore\", \"Warn\" or \"Strict\","
                    + " got \"" + fv + "\"");
        };
        String fieldManager = request.parameter("fieldManager");
        return new WriteOptions("All".equals(dryRun), mode, fieldManager, request.user(), List.of(),
                fieldManager != null && !fieldManager.isEmpty() ? fieldManager
                        : WriteOptions.managerOf(request.header("User-Agent")), isTrue(request.parameter("force")));
    }

    public ListOptions listOptions(ApiCall request, ResourceType type) {
        int limit = 0;
        String l = request.parameter("limit");
        if (l != null && !l.isEmpty()) {
            try {
                // an int64 in Kubernetes; no page is larger than an int can count anyway
                limit = (int) Math.max(0, Math.min(Integer.MAX_VALUE, Long.parseLong(l)));
            } catch (NumberFormatException e) {
                throw ApiException.badRequest("invalid limit \"" + l + "\"");
            }
        }
        return new ListOptions(LabelSelector.parse(request.parameter("labelSelector")),
                FieldSelector.parse(request.parameter("fieldSelector"), type), limit,
                request.parameter("continue"), request.parameter("resourceVersion"),
                request.parameter("resourceVersionMatch"));
    }

    public DeleteOptions deleteOptions(ApiCall request) throws IOException {
        String policy = request.parameter("propagationPolicy");
        Long grace = parseLong(request.parameter("gracePeriodSeconds"), "gracePeriodSeconds");
        boolean dryRun = writeOptions(request).dryRun();
        String uid = null;
        String rv = null;
        byte[] body = readAtMost(request.body(), maxRequestBytes);
        if (body.length > 0) {
            ObjectNode opts = Json.parseObject(body, false);
            String kind = Json.text(opts, "kind");
            if (kind != null && !kind.equals("DeleteOptions")) {
                throw ApiException.badRequest("the body of a delete must be DeleteOptions, not " + kind);
            }
            if (opts.has("propagationPolicy") && !opts.get("propagationPolicy").isNull()) {
                policy = opts.get("propagationPolicy").asString();
            }
            if (opts.has("orphanDependents") && opts.get("orphanDependents").asBoolean(false) && policy == null) {
                policy = "Orphan";
            }
            if (opts.has("gracePeriodSeconds") && !opts.get("gracePeriodSeconds").isNull()) {
                JsonNode g = opts.get("gracePeriodSeconds");
                if (!g.isIntegralNumber() || !g.canConvertToLong()) {
                    String what = g.isNumber() ? "number " + g : g.isString() ? "string" : g.isBoolean() ? "bool"
                            : g.isArray() ? "array" : "object";
                    throw ApiException.badRequest("json: cannot unmarshal " + what
                            + " into Go struct field DeleteOptions.gracePeriodSeconds of type int64");
                }
                grace = g.asLong();
            }
            uid = Json.text(opts, "preconditions.uid");
            rv = Json.text(opts, "preconditions.resourceVersion");
            JsonNode dr = opts.get("dryRun");
            if (dr != null && dr.isArray() && dr.size() > 0) {
                dryRun = true;
            }
        }
        return new DeleteOptions(policy, grace, uid, rv, dryRun, request.user());
    }

    private static Long parseLong(String v, String name) {
        if (v == null || v.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("invalid " + name + " \"" + v + "\"");
        }
    }

    /**
     * A boolean query parameter as kube-apiserver reads one: absent, {@code 0} and
     * {@code false} (in any case) are false, anything else true ({@code True} from the
     * Python client, {@code 1}, even an empty value).
     */
    public static boolean isTrue(String v) {
        return v != null && !v.equals("0") && !v.equalsIgnoreCase("false");
    }

    public static TableConvertor.Include include(ApiCall request) {
        String inc = request.parameter("includeObject");
        if (inc == null || inc.isEmpty() || inc.equals("Metadata")) {
            return TableConvertor.Include.METADATA;
        }
        return switch (inc) {
            case "Object" -> TableConvertor.Include.OBJECT;
            case "None" -> TableConvertor.Include.NONE;
            default -> throw ApiException.badRequest("includeObject must be one of None, Metadata, Object");
        };
    }
}
