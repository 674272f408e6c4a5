package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.api.ResourceType;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import io.cybernetes.store.Store;
import io.cybernetes.store.WatchEvent;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * The revision history of one object, from the store's revision log — something the
 * Kubernetes API does not give: every retained change (ADDED, MODIFIED, DELETED) with its
 * revision and the object as it was after it, oldest first, across the object's lifetimes
 * under that name (each version carries its uid). Honest about compaction: the log keeps
 * superseded versions only for the compaction window, so the answer says up to which
 * revision the log was compacted and whether the history still reaches back to the
 * object's creation ({@code complete}).
 *
 * <p>Authorized like reading the object: anyone authenticated may ask
 * ({@code list objecthistories} in {@code status.cybernetes.io}, in {@code system:basic-user}),
 * and the answer is given to whoever may {@code get} the object itself.
 */
@RestController
@Tag(name = "status.cybernetes.io/v1 objecthistories", description = "The revision history of one object")
class HistoryEndpoint {

    private final Store store;
    private final ResourceRegistry registry;
    private final Authorizer authorizer;

    HistoryEndpoint(Store store, ResourceRegistry registry, Authorizer authorizer) {
        this.store = store;
        this.registry = registry;
        this.authorizer = authorizer;
    }

    @Operation(summary = "The retained revisions of one object (authorized as getting the object)",
            description = "apiVersion and resource name the kind (for example apps/v1 and deployments); namespace is"
                    + " left out for cluster-scoped kinds. Items are oldest first; complete is false when compaction"
                    + " removed the object's earlier revisions.")
    @GetMapping("/apis/status.cybernetes.io/v1/objecthistories")
    ResponseEntity<byte[]> history(@RequestParam(required = false) String apiVersion,
                                   @RequestParam(required = false) String resource,
                                   @RequestParam(required = false) String namespace,
                                   @RequestParam(required = false) String name,
                                   HttpServletRequest request) {
        if (apiVersion == null || apiVersion.isEmpty() || resource == null || resource.isEmpty() || name == null
                || name.isEmpty()) {
            throw ApiException.badRequest("an object history needs apiVersion, resource and name (and namespace for"
                    + " namespaced kinds)");
        }
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
        ResourceType type = registry.byPath(group, version, resource).filter(ResourceType::stored)
                .orElseThrow(() -> ApiException.notFound("the server could not find the requested resource "
                        + resource + (group.isEmpty() ? "" : "." + group) + " in " + apiVersion));
        String ns = type.namespaced() ? namespace == null ? "" : namespace : "";
        if (type.namespaced() && ns.isEmpty()) {
            throw ApiException.badRequest(type.groupResource() + " are namespaced: the history needs a namespace");
        }
        UserInfo user = (UserInfo) request.getAttribute(UserInfo.REQUEST_ATTRIBUTE);
        RequestAttributes read = new RequestAttributes(user, "get", true, group, version, type.plural(), "", ns, name,
                "");
        Authorizer.Decision decision = authorizer.authorize(read);
        if (!decision.allowed()) {
            throw Authorizer.forbidden(read, decision.reason());
        }
        List<WatchEvent> changes = store.history(type.key(ns, name));
        if (changes.isEmpty()) {
            throw ApiException.notFound(type, name);
        }
        long compacted = store.compactedRevision();
        ObjectNode out = Json.object();
        out.put("kind", "ObjectHistory");
        out.put("apiVersion", "status.cybernetes.io/v1");
        ObjectNode meta = out.putObject("metadata");
        meta.put("name", name);
        if (!ns.isEmpty()) {
            meta.put("namespace", ns);
        }
        meta.put("resourceVersion", Long.toString(store.currentRevision()));
        ObjectNode target = out.putObject("target");
        target.put("apiVersion", apiVersion).put("resource", type.plural()).put("kind", type.kind());
        if (!ns.isEmpty()) {
            target.put("namespace", ns);
        }
        target.put("name", name);
        WatchEvent first = changes.get(0);
        out.put("compactedRevision", compacted);
        out.put("complete", first.type() == WatchEvent.Type.ADDED);
        ArrayNode items = out.putArray("items");
        for (WatchEvent e : changes) {
            ObjectNode item = items.addObject();
            item.put("revision", e.revision());
            item.put("type", e.type().name());
            item.put("uid", Json.text(e.object(), "metadata.uid"));
            item.set("object", e.object());
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.MAPPER.writeValueAsBytes(out));
    }
}
