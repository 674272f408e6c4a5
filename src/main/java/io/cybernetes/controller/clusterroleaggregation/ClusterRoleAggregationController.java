package io.cybernetes.controller.clusterroleaggregation;

import io.cybernetes.api.Json;
import io.cybernetes.api.LabelSelector;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.Indexer;
import io.cybernetes.client.ResourceEventHandler;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.Reconciler;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Writes the rules of aggregated ClusterRoles (admin, edit, view, and any with an
 * aggregationRule) into the objects, as kube-controller-manager's clusterrole-aggregation
 * controller does: the union, in name order, of the rules of every ClusterRole its
 * selectors match — through roles that aggregate in turn, whose own rules are only the
 * last union written into them — so {@code kubectl get clusterrole admin -o yaml} shows
 * what the role grants. (The authorizer applies aggregation by itself the moment a
 * labelled role appears; this makes it visible.) Any ClusterRole change looks at every
 * aggregated role again.
 */
public final class ClusterRoleAggregationController implements Reconciler {

    public static final String NAME = "clusterrole-aggregation";

    private final ApiClient client;
    private final Indexer<ClusterRole> roles;

    public ClusterRoleAggregationController(ApiClient client, Indexer<ClusterRole> roles) {
        this.client = client;
        this.roles = roles;
    }

    @Override
    public Result reconcile(Request request) {
        ClusterRole role = roles.get(request.name()).orElse(null);
        if (role == null || !aggregated(role)) {
            return Result.DONE;
        }
        List<PolicyRule> wanted = union(role.getMetadata().getName());
        if (Json.MAPPER.valueToTree(wanted).equals(Json.MAPPER.valueToTree(
                Objects.requireNonNullElse(role.getRules(), List.of())))) {
            return Result.DONE;
        }
        ClusterRole changed = Json.convert(Json.toTree(role), ClusterRole.class);
        changed.setRules(wanted);
        client.update(changed); // a 409 goes back to the queue, and the next try starts from the newer role
        return Result.DONE;
    }

    static boolean aggregated(ClusterRole r) {
        return r.getAggregationRule() != null && r.getAggregationRule().getClusterRoleSelectors() != null
                && !r.getAggregationRule().getClusterRoleSelectors().isEmpty();
    }

    /** The rules the role aggregates. */
    List<PolicyRule> union(String name) {
        Set<PolicyRule> out = new LinkedHashSet<>();
        collect(name, name, out, new HashSet<>());
        return new ArrayList<>(out);
    }

    private void collect(String top, String name, Set<PolicyRule> out, Set<String> visited) {
        ClusterRole r = roles.get(name).orElse(null);
        if (r == null || !visited.add(name)) {
            return;
        }
        if (!aggregated(r)) {
            out.addAll(Objects.requireNonNullElse(r.getRules(), List.of()));
            return;
        }
        List<ClusterRole> byName = new ArrayList<>(roles.list());
        byName.sort(Comparator.comparing(c -> c.getMetadata().getName()));
        for (var sel : r.getAggregationRule().getClusterRoleSelectors()) {
            LabelSelector selector = LabelSelector.fromObject(Json.toTree(sel));
            if (selector.isEmpty()) {
                continue; // an empty selector would aggregate everything; Kubernetes ignores it too
            }
            for (ClusterRole candidate : byName) {
                Map<String, String> labels = candidate.getMetadata().getLabels();
                String candidateName = candidate.getMetadata().getName();
                if (!candidateName.equals(name) && !candidateName.equals(top)
                        && selector.matches(labels == null ? Map.of() : labels)) {
                    collect(top, candidateName, out, visited);
                }
            }
        }
    }

    /** Any ClusterRole that comes, changes or goes may change every aggregated role. */
    public ResourceEventHandler<ClusterRole> handler(Controller controller) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(ClusterRole obj) {
                enqueueAggregated(controller);
            }

            @Override
            public void onUpdate(ClusterRole oldObj, ClusterRole newObj) {
                if (!Objects.equals(oldObj.getRules(), newObj.getRules())
                        || !Objects.equals(oldObj.getMetadata().getLabels(), newObj.getMetadata().getLabels())
                        || !Objects.equals(oldObj.getAggregationRule(), newObj.getAggregationRule())) {
                    enqueueAggregated(controller);
                }
            }

            @Override
            public void onDelete(ClusterRole lastKnown, boolean finalStateUnknown) {
                enqueueAggregated(controller);
            }
        };
    }

    private void enqueueAggregated(Controller controller) {
        for (ClusterRole r : roles.list()) {
            if (aggregated(r)) {
                controller.enqueue(r.getMetadata().getName());
            }
        }
    }
}
