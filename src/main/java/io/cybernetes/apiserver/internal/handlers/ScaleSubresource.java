package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.apiserver.internal.registry.MetaValidation;
import io.cybernetes.apiserver.internal.registry.ScalePaths;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.util.List;

/** {@code <kind>/scale}: the {@code autoscaling/v1 Scale} view of a workload's replicas, read and written. */
public final class ScaleSubresource {

    private ScaleSubresource() {
    }

    /** GET, PUT and PATCH of {@code <kind>/scale}: the Scale read from and written into the object. */
    public static SubresourceHandler.Answer serve(SubresourceHandler.Call call) throws IOException {
        ApiCall request = call.request();
        ResourceService service = call.service();
        ResourceType type = call.type();
        String ns = call.namespace();
        String name = call.name();
        WriteOptions opts = call.reader().writeOptions(request);
        ScalePaths paths = service.definition(type).scale();
        ObjectNode result = switch (request.method()) {
            case "GET" -> toScale(paths, service.get(type, ns, name).value());
            case "PUT" -> {
                ObjectNode scale = call.reader().readObject(request, "Scale");
                service.decodeAs(Scale.class, "Scale", "v1", scale);
                String rv = Json.text(scale, "metadata.resourceVersion");
                long expected = rv == null || rv.isEmpty() ? 0 : ResourceService.parseRevision(rv);
                yield toScale(paths, service.guaranteedUpdate(type, ns, name, "scale", expected, opts,
                        old -> applyScale(type, paths, old, scale)).object());
            }
            case "PATCH" -> {
                PatchType pt = PatchType.fromContentType(request.contentType());
                JsonNode patch = ResourceService.parsePatch(pt, call.reader().readBody(request));
                if (pt == PatchType.APPLY) {
                    yield toScale(paths, applyScale(service, type, ns, name, paths, (ObjectNode) patch, opts));
                }
                yield toScale(paths, service.guaranteedUpdate(type, ns, name, "scale", 0, opts, old -> {
                    ObjectNode scale = ResourceService.applyPatch(pt, toScale(paths, old), patch);
                    service.decodeAs(Scale.class, "Scale", "v1", scale);
                    return applyScale(type, paths, old, scale);
                }).object());
            }
            default -> throw ApiException.methodNotAllowed();
        };
        return new SubresourceHandler.Answer(result, 200);
    }

    /**
     * Server-side apply of a Scale: its replicas applied at the kind's replicas path, as
     * Kubernetes maps the scale's managed fields to the parent's, so the applier owns that
     * one field in an entry of subresource scale, and conflicts with whoever owns it there.
     */
    private static ObjectNode applyScale(ResourceService service, ResourceType type, String ns, String name,
                                         ScalePaths paths, ObjectNode scale, WriteOptions opts) {
        service.decodeAs(Scale.class, "Scale", "v1", scale);
        ObjectNode config = Json.object();
        config.put("apiVersion", type.apiVersion());
        config.put("kind", type.kind());
        config.putObject("metadata").put("name", name);
        applyScale(type, paths, config, scale);
        return service.applyToLive(type, ns, name, "scale", config, opts).object();
    }

    public static ObjectNode toScale(ScalePaths paths, ObjectNode obj) {
        ObjectNode scale = Json.object();
        scale.put("kind", "Scale");
        scale.put("apiVersion", "autoscaling/v1");
        ObjectNode meta = scale.putObject("metadata");
        for (String f : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
            if (obj.path("metadata").has(f)) {
                meta.set(f, obj.path("metadata").get(f));
            }
        }
        scale.putObject("spec").put("replicas", paths.specReplicas(obj));
        ObjectNode status = scale.putObject("status");
        status.put("replicas", paths.statusReplicas(obj));
        String selector = paths.selector(obj);
        if (!selector.isEmpty()) {
            status.put("selector", selector);
        }
        return scale;
    }

    /** Applies a written Scale (already patched or sent whole) to the workload. */
    public static ObjectNode applyScale(ResourceType type, ScalePaths paths, ObjectNode obj, JsonNode scale) {
        if (scale.has("kind") && !"Scale".equals(Json.text(scale, "kind"))) {
            throw ApiException.badRequest("the kind in the data (" + Json.text(scale, "kind")
                    + ") does not match the expected kind (Scale)");
        }
        JsonNode replicas = scale.path("spec").get("replicas");
        if (replicas == null || !replicas.isIntegralNumber()) {
            throw ApiException.invalid(type, Json.text(obj, "metadata.name"),
                    List.of(MetaValidation.required("spec.replicas")));
        }
        if (replicas.asInt() < 0) {
            throw ApiException.invalid(type, Json.text(obj, "metadata.name"), List.of(MetaValidation.invalid(
                    "spec.replicas", replicas.asString(), "must be greater than or equal to 0")));
        }
        paths.setSpecReplicas(obj, replicas.asInt());
        return obj;
    }
}
