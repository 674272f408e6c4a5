package io.cybernetes.apiserver.internal.openapi;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceRegistry.GroupVersion;
import io.cybernetes.apiserver.internal.registry.SchemaRegistry;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The OpenAPI documents kubectl reads to validate, to explain and to learn that the server
 * checks fields itself: {@code /openapi/v3} (an index, then one document per group
 * version) and {@code /openapi/v2} (one document, as JSON or in the protobuf form kubectl
 * asks for), built by {@link KubeOpenApi} from the same schemas. Each document is built
 * once, hashed, and answered with its ETag (304 when the client has it).
 */
@Hidden
@RestController
class KubeOpenApiController {

    private final ResourceRegistry registry;
    private final KubeOpenApi openApi;
    private volatile Documents current;

    /** The documents of one generation of the served kinds. */
    private record Documents(long generation, Map<String, byte[]> documents, Map<String, String> hashes,
                             byte[] v2Json, byte[] v2Protobuf, String v2Hash) {
    }

    KubeOpenApiController(ResourceRegistry registry, SchemaRegistry schemas) {
        this.registry = registry;
        this.openApi = new KubeOpenApi(registry, schemas);
        this.current = build();
    }

    /** The documents of the kinds served now: built again when kinds have come or gone (a CRD). */
    private Documents documents() {
        Documents d = current;
        if (d.generation() == registry.generation()) {
            return d;
        }
        synchronized (this) {
            if (current.generation() != registry.generation()) {
                current = build();
            }
            return current;
        }
    }

    private Documents build() {
        long generation = registry.generation();
        Map<String, byte[]> documents = new LinkedHashMap<>();
        Map<String, String> hashes = new LinkedHashMap<>();
        for (GroupVersion gv : registry.groupVersions()) {
            byte[] doc = Json.MAPPER.writeValueAsBytes(openApi.v3(gv));
            documents.put(gv.path(), doc);
            hashes.put(gv.path(), hash(doc));
        }
        ObjectNode v2 = openApi.v2();
        byte[] v2Json = Json.MAPPER.writeValueAsBytes(v2);
        return new Documents(generation, documents, hashes, v2Json, OpenApiV2Protobuf.encode(v2), hash(v2Json));
    }

    @GetMapping("/openapi/v3")
    ResponseEntity<byte[]> index() {
        ObjectNode o = Json.object();
        ObjectNode paths = o.putObject("paths");
        documents().hashes().forEach((path, hash) -> paths.putObject(path).put("serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash));
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.MAPPER.writeValueAsBytes(o));
    }

    @GetMapping("/openapi/v3/api/{version}")
    ResponseEntity<byte[]> core(@PathVariable String version) {
        return doc("api/" + version);
    }

    @GetMapping("/openapi/v3/apis/{group}/{version}")
    ResponseEntity<byte[]> group(@PathVariable String group, @PathVariable String version) {
        return doc("apis/" + group + "/" + version);
    }

    /**
     * The v2 document: protobuf when the client accepts it (kubectl asks for it first),
     * JSON otherwise. Written by hand: Spring parses the media types it is given, and the
     * one clients ask for has an '@' it refuses.
     */
    @GetMapping("/openapi/v2")
    void v2(HttpServletRequest request, HttpServletResponse response) throws IOException {
        boolean protobuf = switch (v2Form(request.getHeader(HttpHeaders.ACCEPT))) {
            case PROTOBUF -> true;
            case JSON -> false;
            case NONE -> throw ApiException.notAcceptable("only the following media types are accepted: "
                    + MediaType.APPLICATION_JSON_VALUE + ", " + OpenApiV2Protobuf.ACCEPTED);
        };
        // one tag for both forms, the JSON's, as kube-openapi tags them (the forms differ by Vary: Accept)
        Documents docs = documents();
        String etag = "\"" + docs.v2Hash() + "\"";
        response.setHeader(HttpHeaders.ETAG, etag);
        response.setHeader(HttpHeaders.VARY, HttpHeaders.ACCEPT);
        String ifNoneMatch = request.getHeader(HttpHeaders.IF_NONE_MATCH);
        if (ifNoneMatch != null && ifNoneMatch.contains(docs.v2Hash())) {
            response.setStatus(304);
            return;
        }
        byte[] body = protobuf ? docs.v2Protobuf() : docs.v2Json();
        response.setStatus(200);
        response.setContentType(protobuf ? OpenApiV2Protobuf.MEDIA_TYPE : MediaType.APPLICATION_JSON_VALUE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    enum V2Form { JSON, PROTOBUF, NONE }

    /**
     * The form of the v2 document the Accept header prefers, negotiated as kube-openapi
     * does: the highest q wins, the earlier of equals; no header, or any type, is JSON;
     * a header naming neither (or only with q=0) is answered 406.
     */
    static V2Form v2Form(String accept) {
        if (accept == null || accept.isBlank()) {
            return V2Form.JSON;
        }
        V2Form best = V2Form.NONE;
        double bestQ = 0;
        for (String range : accept.split(",")) {
            String[] parts = range.trim().split(";");
            String type = parts[0].trim().toLowerCase(java.util.Locale.ROOT);
            double q = 1;
            for (int i = 1; i < parts.length; i++) {
                String p = parts[i].trim();
                if (p.startsWith("q=")) {
                    try {
                        q = Double.parseDouble(p.substring(2));
                    } catch (NumberFormatException e) {
                        q = 0;
                    }
                }
            }
            V2Form form = type.equals(OpenApiV2Protobuf.ACCEPTED) || type.equals(OpenApiV2Protobuf.MEDIA_TYPE)
                    ? V2Form.PROTOBUF
                    : type.equals("application/json") || type.equals("application/*") || type.equals("*/*")
                    ? V2Form.JSON : V2Form.NONE;
            if (form != V2Form.NONE && q > bestQ) {
                best = form;
                bestQ = q;
            }
        }
        return best;
    }

    private ResponseEntity<byte[]> doc(String path) {
        Documents docs = documents();
        byte[] doc = docs.documents().get(path);
        if (doc == null) {
            throw ApiException.pathNotFound();
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON)
                .header("Cache-Control", "public, immutable").body(doc);
    }

    /** A document's hash as kube-openapi computes it (its ETag, and v3's {@code ?hash=}): SHA-512, upper-case hex. */
    private static String hash(byte[] doc) {
        try {
            return HexFormat.of().withUpperCase().formatHex(MessageDigest.getInstance("SHA-512").digest(doc));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
