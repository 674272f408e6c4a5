package io.cybernetes.auth;

import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bootstrap policy is Kubernetes 1.32's, held against Kubernetes' own golden files
 * (test resource {@code rbac/kubernetes-bootstrap-policy.jsonl}): every role and binding
 * with Kubernetes' labels, aggregation and subjects; every permission Kubernetes grants
 * on what this server serves, and none it does not grant, but for Cybernetes' own views
 * ({@code status.cybernetes.io}) and the controller manager, whose one identity does the
 * work of Kubernetes' per-controller identities.
 */
class BootstrapPolicyTest {

    /** One permission: a verb on a group's resource (with a name), or on a non-resource URL. */
    record Atom(String verb, String group, String resource, String name, String url) implements Comparable<Atom> {
        @Override
        public int compareTo(Atom o) {
            return toString().compareTo(o.toString());
        }
    }

    private record Role(Map<String, String> labels, Map<String, String> aggregate, Set<Atom> atoms) {
    }

    private final Map<String, Role> kubernetesRoles = new LinkedHashMap<>();
    private final Map<String, Set<String>> kubernetesBindings = new LinkedHashMap<>();
    private final Set<String> served = ResourceRegistry.builtIn().all().stream()
            .map(t -> t.group() + "/" + t.plural()).collect(Collectors.toSet());

    BootstrapPolicyTest() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/rbac/kubernetes-bootstrap-policy.jsonl")) {
            String role = null;
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                JsonNode n = Json.MAPPER.readTree(line);
                if (n.has("clusterRole")) {
                    role = n.get("clusterRole").asString();
                    kubernetesRoles.put(role, new Role(strings(n.path("labels")), strings(n.path("aggregate")),
                            new TreeSet<>()));
                } else if (n.has("rule")) {
                    kubernetesRoles.get(role).atoms().addAll(atoms(Json.convert(n.get("rule"), PolicyRule.class)));
                } else {
                    Set<String> subjects = new TreeSet<>();
                    n.path("subjects").forEach(s -> subjects.add(s.path("kind").asString() + ":"
                            + s.path("name").asString()));
                    kubernetesBindings.put(n.get("clusterRoleBinding").asString() + " -> " + n.get("role").asString(),
                            subjects);
                }
            }
        }
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> m = new LinkedHashMap<>();
        object.properties().forEach(e -> m.put(e.getKey(), e.getValue().asString()));
        return m;
    }

    private static List<String> orEmpty(List<String> l) {
        return l == null || l.isEmpty() ? List.of("") : l;
    }

    private static Set<Atom> atoms(PolicyRule r) {
        Set<Atom> atoms = new TreeSet<>();
        for (String verb : r.getVerbs()) {
            if (r.getNonResourceURLs() != null && !r.getNonResourceURLs().isEmpty()) {
                r.getNonResourceURLs().forEach(u -> atoms.add(new Atom(verb, null, null, null, u)));
                continue;
            }
            for (String group : r.getApiGroups()) {
                for (String resource : r.getResources()) {
                    for (String name : orEmpty(r.getResourceNames())) {
                        atoms.add(new Atom(verb, group, resource, name, null));
                    }
                }
            }
        }
        return atoms;
    }

    private static Set<Atom> atoms(ClusterRole role) {
        Set<Atom> atoms = new TreeSet<>();
        (role.getRules() == null ? List.<PolicyRule>of() : role.getRules()).forEach(r -> atoms.addAll(atoms(r)));
        return atoms;
    }

    /** Whether this server serves what the permission is about (a subresource counts as its resource). */
    private boolean aboutServed(Atom a) {
        return a.url() != null || a.group().equals("*") || a.resource().equals("*")
                || served.contains(a.group() + "/" + a.resource().split("/")[0]);
    }

    /** Cybernetes' own components' roles and bindings, which Kubernetes has no counterpart of. */
    private static final String OWN = "system:cybernetes:";

    /** The roles that are Kubernetes' (all but Cybernetes' own components'). */
    private static Map<String, ClusterRole> ours() {
        Map<String, ClusterRole> m = new LinkedHashMap<>();
        BootstrapPolicy.clusterRoles().stream().filter(r -> !r.getMetadata().getName().startsWith(OWN))
                .forEach(r -> m.put(r.getMetadata().getName(), r));
        return m;
    }

    @Test
    void cybernetesOwnComponentsOnlyReadWhatTheyWatch() {
        Map<String, Set<Atom>> own = new LinkedHashMap<>();
        BootstrapPolicy.clusterRoles().stream().filter(r -> r.getMetadata().getName().startsWith(OWN))
                .forEach(r -> own.put(r.getMetadata().getName(), atoms(r)));
        assertThat(own).containsOnlyKeys(BootstrapPolicy.NODE_SIMULATOR);
        assertThat(own.get(BootstrapPolicy.NODE_SIMULATOR)).extracting(Atom::verb)
                .containsExactlyInAnyOrder("get", "list", "watch");
        assertThat(own.get(BootstrapPolicy.NODE_SIMULATOR)).extracting(Atom::resource).containsOnly("pods");
        List<String> bound = new ArrayList<>();
        BootstrapPolicy.clusterRoleBindings().stream().filter(b -> b.getMetadata().getName().startsWith(OWN))
                .forEach(b -> b.getSubjects().forEach(x -> bound.add(b.getRoleRef().getName() + " -> " + x.getKind()
                        + ":" + x.getName())));
        assertThat(bound).containsExactly(BootstrapPolicy.NODE_SIMULATOR + " -> User:" + BootstrapPolicy.NODE_SIMULATOR);
    }

    @Test
    void everyRoleIsKubernetesWithItsLabelsAndAggregation() {
        Map<String, ClusterRole> ours = ours();
        assertThat(ours.keySet()).containsExactlyInAnyOrderElementsOf(kubernetesRoles.keySet());
        for (Map.Entry<String, Role> e : kubernetesRoles.entrySet()) {
            ClusterRole r = ours.get(e.getKey());
            Map<String, String> labels = new LinkedHashMap<>(r.getMetadata().getLabels());
            assertThat(labels.remove("kubernetes.io/bootstrapping")).isEqualTo("rbac-defaults");
            assertThat(labels).as(e.getKey()).isEqualTo(e.getValue().labels());
            assertThat(r.getMetadata().getAnnotations()).containsEntry(BootstrapPolicy.AUTOUPDATE, "true");
            Map<String, String> aggregate = r.getAggregationRule() == null ? Map.of()
                    : r.getAggregationRule().getClusterRoleSelectors().get(0).getMatchLabels();
            assertThat(aggregate).as(e.getKey()).isEqualTo(e.getValue().aggregate());
        }
    }

    @Test
    void everyRoleGrantsWhatKubernetesGrantsOnWhatThisServerServes() {
        Map<String, ClusterRole> ours = ours();
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, Role> e : kubernetesRoles.entrySet()) {
            Set<Atom> have = atoms(ours.get(e.getKey()));
            e.getValue().atoms().stream().filter(this::aboutServed).filter(a -> !have.contains(a))
                    .forEach(a -> missing.add(e.getKey() + ": " + a));
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void noRoleGrantsMoreThanKubernetesButOnCybernetesOwnViews() {
        List<String> extra = new ArrayList<>();
        for (ClusterRole r : ours().values()) {
            String name = r.getMetadata().getName();
            if (name.equals(BootstrapPolicy.KUBE_CONTROLLER_MANAGER)) {
                continue;
            }
            Set<Atom> granted = kubernetesRoles.get(name).atoms();
            atoms(r).stream().filter(a -> !granted.contains(a))
                    .filter(a -> !ResourceRegistry.STATUS.equals(a.group()))
                    .forEach(a -> extra.add(name + ": " + a));
        }
        assertThat(extra).isEmpty();
    }

    @Test
    void tenantAdminsMayNotWriteTheirOwnQuotaOrLimits() {
        Set<Atom> admin = new TreeSet<>();
        BootstrapPolicy.clusterRoles().stream()
                .filter(r -> r.getMetadata().getLabels().containsKey(BootstrapPolicy.AGGREGATE_TO + "admin")
                        || r.getMetadata().getLabels().containsKey(BootstrapPolicy.AGGREGATE_TO + "edit")
                        || r.getMetadata().getLabels().containsKey(BootstrapPolicy.AGGREGATE_TO + "view"))
                .forEach(r -> admin.addAll(atoms(r)));
        for (String resource : List.of("resourcequotas", "limitranges")) {
            assertThat(admin).contains(new Atom("get", "", resource, "", null));
            for (String verb : List.of("create", "update", "patch", "delete", "deletecollection")) {
                assertThat(admin).doesNotContain(new Atom(verb, "", resource, "", null));
            }
        }
    }

    @Test
    void everyBindingIsKubernetes() {
        Map<String, Set<String>> ours = new LinkedHashMap<>();
        for (ClusterRoleBinding b : BootstrapPolicy.clusterRoleBindings()) {
            if (b.getMetadata().getName().startsWith(OWN)) {
                continue;
            }
            Set<String> subjects = new TreeSet<>();
            b.getSubjects().forEach(s -> subjects.add(s.getKind() + ":" + s.getName()));
            ours.put(b.getMetadata().getName() + " -> " + b.getRoleRef().getName(), subjects);
        }
        assertThat(ours).isEqualTo(kubernetesBindings);
    }
}
