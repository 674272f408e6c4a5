package io.cybernetes.scheduler.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.scheduler.SchedulerManager;
import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.Status;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Map;

/**
 * Why a pod went where it went, or nowhere: the scheduler's last attempt for it — every
 * node's filter verdict with the plugin and reasons, the per-plugin scores of the
 * feasible nodes, and whom it preempts. For a pod still waiting the whole attempt is
 * kept; for the last thousand placed pods, their first hundred verdicts and hundred
 * best-scored nodes (the rest counted as omitted). Authorized by RBAC as {@code pods/scheduling} in
 * {@code status.cybernetes.io} (the {@code view} role reads it).
 */
@RestController
@Tag(name = "status.cybernetes.io/v1 scheduling", description = "Why the scheduler placed a pod where it did")
class PlacementEndpoint {

    private final SchedulerManager scheduler;

    PlacementEndpoint(SchedulerManager scheduler) {
        this.scheduler = scheduler;
    }

    @Operation(summary = "The scheduler's last attempt for a pod: each node's filter verdict and the feasible"
            + " nodes' scores by plugin")
    @GetMapping("/apis/status.cybernetes.io/v1/namespaces/{namespace}/pods/{name}/scheduling")
    ResponseEntity<byte[]> placement(@PathVariable String namespace, @PathVariable String name) {
        Framework.Decision d = scheduler.lastDecision(namespace + "/" + name).orElseThrow(() -> ApiException.notFound(
                "no scheduling attempt of pod \"" + name + "\" in namespace \"" + namespace + "\" is known here (it"
                        + " was bound before this replica scheduled, or this replica does not lead)"));
        ObjectNode o = Json.object();
        o.put("kind", "PodScheduling");
        o.put("apiVersion", "status.cybernetes.io/v1");
        o.putObject("metadata").put("name", name).put("namespace", namespace);
        ObjectNode st = o.putObject("status");
        st.put("scheduled", d.scheduled());
        if (d.scheduled()) {
            st.put("node", d.node());
        } else {
            st.put("message", d.message());
        }
        st.put("nodesConsidered", d.nodesConsidered());
        if (d.preempting()) {
            ObjectNode p = st.putObject("preemption");
            p.put("nominatedNode", d.postFilter().nominatedNode());
            Json.addStrings(p.putArray("victims"), d.postFilter().victims().stream()
                    .map(v -> v.getMetadata().getNamespace() + "/" + v.getMetadata().getName()).toList());
        }
        if (d.omittedVerdicts() > 0 || d.omittedScores() > 0) {
            st.put("omittedVerdicts", d.omittedVerdicts());
            st.put("omittedScores", d.omittedScores());
        }
        ArrayNode filtered = st.putArray("filtered");
        for (Map.Entry<String, Status> e : d.filtered().entrySet()) {
            ObjectNode n = filtered.addObject();
            n.put("node", e.getKey());
            n.put("plugin", e.getValue().plugin());
            n.put("code", e.getValue().code().name());
            Json.addStrings(n.putArray("reasons"), e.getValue().reasons());
        }
        ArrayNode scores = st.putArray("scores");
        for (Map.Entry<String, Map<String, Long>> e : d.scores().entrySet()) {
            ObjectNode n = scores.addObject();
            n.put("node", e.getKey());
            ObjectNode byPlugin = n.putObject("plugins");
            long total = 0;
            for (Map.Entry<String, Long> p : e.getValue().entrySet()) {
                byPlugin.put(p.getKey(), p.getValue());
                total += p.getValue();
            }
            n.put("total", total);
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.MAPPER.writeValueAsBytes(o));
    }
}
