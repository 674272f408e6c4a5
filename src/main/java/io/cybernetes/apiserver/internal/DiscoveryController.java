package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.registry.KindDefinitions;
import io.cybernetes.apiserver.internal.registry.Subresource;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.apiserver.internal.aggregator.Backends;
import io.cybernetes.apiserver.internal.handlers.ServletCall;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.JsonNode;
import java.io.IOException;
import io.cybernetes.api.ResourceRegistry.GroupVersion;
import io.cybernetes.api.ResourceType;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * API discovery: the legacy lists ({@code /api}, {@code /apis}, per group-version
 * resource lists) and the aggregated v2 form that kubectl asks for first.
 */
@Tag(name = "discovery", description = "What this server serves, as kubectl discovers it")
@RestController
class DiscoveryController {

    static final String AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

    private final ResourceRegistry registry;
    private final KindDefinitions definitions;
    private final Backends backends;

    DiscoveryController(ResourceRegistry registry, KindDefinitions definitions, Backends backends) {
        this.registry = registry;
        this.definitions = definitions;
        this.backends = backends;
    }

    @Operation(summary = "The core API versions (or the aggregated discovery document of the core group)")
    @GetMapping("/api")
    ResponseEntity<byte[]> api(HttpServletRequest request) {
        if (wantsAggregated(request)) {
            return aggregated(registry.groupVersions().stream().filter(gv -> gv.group().isEmpty()).toList());
        }
        ObjectNode o = Json.object();
        o.put("kind", "APIVersions");
        o.putArray("versions").add("v1");
        ObjectNode addr = o.putArray("serverAddressByClientCIDRs").addObject();
        addr.put("clientCIDR", "0.0.0.0/0");
        addr.put("serverAddress", request.getLocalAddr() + ":" + request.getLocalPort());
        return json(o);
    }

    @Operation(summary = "The API groups (or the aggregated discovery document of every named group)")
    @GetMapping("/apis")
    ResponseEntity<byte[]> apis(HttpServletRequest request) {
        if (wantsAggregated(request)) {
            return aggregated(registry.groupVersions().stream().filter(gv -> !gv.group().isEmpty()).toList());
        }
        ObjectNode o = Json.object();
        o.put("kind", "APIGroupList");
        o.put("apiVersion", "v1");
        ArrayNode groups = o.putArray("groups");
        for (String group : groups()) {
            groups.add(group(group));
        }
        for (String group : remoteGroups()) {
            groups.add(remoteGroup(group));
        }
        return json(o);
    }

    @Operation(summary = "One API group")
    @GetMapping("/apis/{group}")
    ResponseEntity<byte[]> apiGroup(@PathVariable String group) {
        if (!groups().contains(group)) {
            if (remoteGroups().contains(group)) {
                return json(remoteGroup(group));
            }
            throw ApiException.pathNotFound();
        }
        return json(group(group));
    }

    @Operation(summary = "The resources of the core group")
    @GetMapping("/api/v1")
    ResponseEntity<byte[]> coreResources() {
        return json(resourceList(new GroupVersion("", "v1")));
    }

    @Operation(summary = "The resources of one group version")
    @GetMapping("/apis/{group}/{version}")
    ResponseEntity<byte[]> groupResources(@PathVariable String group, @PathVariable String version,
                                          HttpServletRequest request, HttpServletResponse response) throws IOException {
        GroupVersion gv = new GroupVersion(group, version);
        if (backends.serves(group, version)) {
            backends.proxy(new ServletCall(request, response)); // the extension server's own list
            return null;
        }
        if (!registry.groupVersions().contains(gv)) {
            throw ApiException.pathNotFound();
        }
        return json(resourceList(gv));
    }

    /** The groups only extension API servers serve, by their highest group priority. */
    private List<String> remoteGroups() {
        List<String> local = groups();
        return backends.all().stream().filter(b -> !local.contains(b.group()))
                .sorted(java.util.Comparator.comparingInt(Backends.Backend::groupPriority).reversed())
                .map(Backends.Backend::group).distinct().toList();
    }

    /** An extension server's versions of a group, the preferred one (highest version priority) first. */
    private List<Backends.Backend> remoteVersions(String group) {
        return backends.all().stream().filter(b -> b.group().equals(group))
                .sorted(java.util.Comparator.comparingInt(Backends.Backend::versionPriority).reversed()).toList();
    }

    private ObjectNode remoteGroup(String group) {
        ObjectNode g = Json.object();
        g.put("kind", "APIGroup");
        g.put("apiVersion", "v1");
        g.put("name", group);
        ArrayNode versions = g.putArray("versions");
        List<Backends.Backend> all = remoteVersions(group);
        for (Backends.Backend b : all) {
            versions.addObject().put("groupVersion", group + "/" + b.version()).put("version", b.version());
        }
        g.putObject("preferredVersion").put("groupVersion", group + "/" + all.get(0).version())
                .put("version", all.get(0).version());
        return g;
    }

    private List<String> groups() {
        return registry.groupVersions().stream().map(GroupVersion::group).filter(g -> !g.isEmpty()).distinct().toList();
    }

    private ObjectNode group(String group) {
        ObjectNode g = Json.object();
        g.put("kind", "APIGroup");
        g.put("apiVersion", "v1");
        g.put("name", group);
        ArrayNode versions = g.putArray("versions");
        GroupVersion preferred = null;
        for (GroupVersion gv : registry.groupVersions()) {
            if (gv.group().equals(group)) {
                ObjectNode v = versions.addObject();
                v.put("groupVersion", gv.groupVersion());
                v.put("version", gv.version());
                if (preferred == null) {
                    preferred = gv;
                }
            }
        }
        ObjectNode p = g.putObject("preferredVersion");
        p.put("groupVersion", preferred.groupVersion());
        p.put("version", preferred.version());
        return g;
    }

    private ObjectNode resourceList(GroupVersion gv) {
        ObjectNode o = Json.object();
        o.put("kind", "APIResourceList");
        o.put("apiVersion", "v1");
        o.put("groupVersion", gv.groupVersion());
        ArrayNode resources = o.putArray("resources");
        for (ResourceType t : registry.in(gv)) {
            ObjectNode r = resources.addObject();
            r.put("name", t.plural());
            r.put("singularName", t.singular());
            r.put("namespaced", t.namespaced());
            r.put("kind", t.kind());
            verbsAndNames(r, t);
            for (Subresource k : definitions.of(t).subresources()) {
                ObjectNode s = resources.addObject();
                s.put("name", t.plural() + "/" + k.name());
                s.put("singularName", "");
                s.put("namespaced", t.namespaced());
                s.put("kind", k.kind());
                if (!k.group().equals(t.group()) || !k.version().equals(t.version())) {
                    s.put("group", k.group());
                    s.put("version", k.version());
                }
                Json.addStrings(s.putArray("verbs"), k.verbs());
            }
        }
        return o;
    }

    private ResponseEntity<byte[]> aggregated(List<GroupVersion> gvs) {
        ObjectNode o = Json.object();
        o.put("kind", "APIGroupDiscoveryList");
        o.put("apiVersion", "apidiscovery.k8s.io/v2");
        o.putObject("metadata");
        ArrayNode items = o.putArray("items");
        for (String group : gvs.stream().map(GroupVersion::group).distinct().toList()) {
            ObjectNode item = items.addObject();
            ObjectNode meta = item.putObject("metadata");
            meta.put("name", group);
            meta.putNull("creationTimestamp");
            ArrayNode versions = item.putArray("versions");
            for (GroupVersion gv : gvs) {
                if (!gv.group().equals(group)) {
                    continue;
                }
                ObjectNode v = versions.addObject();
                v.put("version", gv.version());
                ArrayNode resources = v.putArray("resources");
                for (ResourceType t : registry.in(gv)) {
                    ObjectNode r = resources.addObject();
                    r.put("resource", t.plural());
                    kind(r.putObject("responseKind"), t.group(), t.version(), t.kind());
                    r.put("scope", t.namespaced() ? "Namespaced" : "Cluster");
                    r.put("singularResource", t.singular());
                    verbsAndNames(r, t);
                    List<Subresource> subresources = definitions.of(t).subresources();
                    if (!subresources.isEmpty()) {
                        ArrayNode subs = r.putArray("subresources");
                        for (Subresource k : subresources) {
                            ObjectNode s = subs.addObject();
                            s.put("subresource", k.name());
                            kind(s.putObject("responseKind"), k.group(), k.version(), k.kind());
                            Json.addStrings(s.putArray("verbs"), k.verbs());
                        }
                    }
                }
                v.put("freshness", "Current");
            }
        }
        if (gvs.stream().noneMatch(gv -> gv.group().isEmpty())) {
            for (String group : remoteGroups()) {
                items.add(remoteAggregated(group));
            }
        }
        return ResponseEntity.ok().contentType(MediaType.parseMediaType(AGGREGATED))
                .header(HttpHeaders.VARY, "Accept").body(Json.MAPPER.writeValueAsBytes(o));
    }

    /** An extension server's group in the aggregated form, from the resource lists its discovery gave. */
    private ObjectNode remoteAggregated(String group) {
        ObjectNode item = Json.object();
        ObjectNode meta = item.putObject("metadata");
        meta.put("name", group);
        meta.putNull("creationTimestamp");
        ArrayNode versions = item.putArray("versions");
        for (Backends.Backend b : remoteVersions(group)) {
            ObjectNode v = versions.addObject();
            v.put("version", b.version());
            ArrayNode resources = v.putArray("resources");
            if (!b.available()) {
                v.put("freshness", "Stale"); // its server is not answering: kubectl reports it and goes on
                continue;
            }
            java.util.Map<String, ObjectNode> byName = new java.util.LinkedHashMap<>();
            for (JsonNode r : b.resources().path("resources")) {
                String name = r.path("name").asString("");
                int slash = name.indexOf('/');
                if (slash < 0) {
                    ObjectNode out = resources.addObject();
                    out.put("resource", name);
                    kind(out.putObject("responseKind"), group, b.version(), r.path("kind").asString(""));
                    out.put("scope", r.path("namespaced").asBoolean() ? "Namespaced" : "Cluster");
                    out.put("singularResource", r.path("singularName").asString(""));
                    for (String f : List.of("verbs", "shortNames", "categories")) {
                        if (r.path(f).isArray()) {
                            out.set(f, r.path(f).deepCopy());
                        }
                    }
                    byName.put(name, out);
                } else if (byName.containsKey(name.substring(0, slash))) {
                    ObjectNode s = byName.get(name.substring(0, slash)).withArray("subresources").addObject();
                    s.put("subresource", name.substring(slash + 1));
                    kind(s.putObject("responseKind"), r.path("group").asString(group), r.path("version")
                            .asString(b.version()), r.path("kind").asString(""));
                    s.set("verbs", r.path("verbs").deepCopy());
                }
            }
            v.put("freshness", "Current");
        }
        return item;
    }

    /** Verbs, short names and categories: the same in both discovery forms. */
    private static void verbsAndNames(ObjectNode r, ResourceType t) {
        Json.addStrings(r.putArray("verbs"), t.verbs());
        if (!t.shortNames().isEmpty()) {
            Json.addStrings(r.putArray("shortNames"), t.shortNames());
        }
        if (!t.categories().isEmpty()) {
            Json.addStrings(r.putArray("categories"), t.categories());
        }
    }

    private static void kind(ObjectNode o, String group, String version, String kind) {
        o.put("group", group);
        o.put("version", version);
        o.put("kind", kind);
    }

    private static boolean wantsAggregated(HttpServletRequest request) {
        String accept = request.getHeader(HttpHeaders.ACCEPT);
        return accept != null && accept.split(",")[0].contains("as=APIGroupDiscoveryList");
    }

    private static ResponseEntity<byte[]> json(ObjectNode o) {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).header(HttpHeaders.VARY, "Accept")
                .body(Json.MAPPER.writeValueAsBytes(o));
    }
}
