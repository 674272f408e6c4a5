package io.cybernetes.scheduler.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Identity;
import io.cybernetes.api.Json;
import io.cybernetes.client.ApiClient;
import io.cybernetes.scheduler.SchedulerManager;
import io.cybernetes.scheduler.framework.Framework;
import io.cybernetes.scheduler.framework.Status;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Why a pod went where it went, or nowhere: the scheduler's last attempt for it — every
 * node's filter verdict with the plugin and reasons, the per-plugin scores of the
 * feasible nodes, and whom it preempts. For a pod still waiting the whole attempt is
 * kept; for the last thousand placed pods, their first hundred verdicts and hundred
 * best-scored nodes (the rest counted as omitted). Authorized by RBAC as {@code pods/scheduling} in
 * {@code status.cybernetes.io} (the {@code view} role reads it); the victims of a
 * preemption are named only where the reader may {@code get} them (asked of the API
 * server as a SubjectAccessReview), the others only counted.
 */
@RestController
@Tag(name = "status.cybernetes.io/v1 scheduling", description = "Why the scheduler placed a pod where it did")
class PlacementEndpoint {

    private final Function<String, Optional<Framework.Decision>> decisions;
    private final ApiClient reviews;

    @Autowired
    PlacementEndpoint(SchedulerManager scheduler) {
        this(scheduler::lastDecision, scheduler.client());
    }

    /** Decisions by pod key (namespace/name); access asked through {@code reviews} (a client that may create SubjectAccessReviews). */
    PlacementEndpoint(Function<String, Optional<Framework.Decision>> decisions, ApiClient reviews) {
        this.decisions = decisions;
        this.reviews = reviews;
    }

    @Operation(summary = "The scheduler's last attempt for a pod: each node's filter verdict and the feasible"
            + " nodes' scores by plugin")
    @GetMapping("/apis/status.cybernetes.io/v1/namespaces/{namespace}/pods/{name}/scheduling")
    ResponseEntity<byte[]> placement(@PathVariable String namespace, @PathVariable String name,
                                     @RequestAttribute(name = Identity.REQUEST_ATTRIBUTE, required = false)
                                     Identity reader) {
        Framework.Decision d = decisions.apply(namespace + "/" + name).orElseThrow(() -> ApiException.notFound(
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
            List<String> visible = d.postFilter().victims().stream()
                    .filter(v -> mayGet(reader, v.getMetadata().getNamespace(), v.getMetadata().getName()))
                    .map(v -> v.getMetadata().getNamespace() + "/" + v.getMetadata().getName()).toList();
            Json.addStrings(p.putArray("victims"), visible);
            int hidden = d.postFilter().victims().size() - visible.size();
            if (hidden > 0) {
                p.put("victimsNotShown", hidden);
            }
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

    /** Whether the reader may get the pod, as the API server's authorizer answers a SubjectAccessReview. */
    private boolean mayGet(Identity reader, String namespace, String name) {
        if (reader == null) {
            return false;
        }
        SubjectAccessReview review = new SubjectAccessReviewBuilder().withNewSpec()
                .withUser(reader.name()).withUid(reader.uid()).withGroups(reader.groups()).withExtra(reader.extra())
                .withNewResourceAttributes().withVerb("get").withResource("pods").withNamespace(namespace)
                .withName(name).endResourceAttributes().endSpec().build();
        SubjectAccessReview answer = reviews.create(review);
        return answer.getStatus() != null && Boolean.TRUE.equals(answer.getStatus().getAllowed());
    }
}
