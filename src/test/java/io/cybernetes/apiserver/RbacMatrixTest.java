package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Users × verbs × resources × namespaces against a two-team policy: each team's group is
 * admin of its own namespace (a RoleBinding to the aggregated {@code admin} ClusterRole),
 * auditors may view everything (a ClusterRoleBinding to {@code view}), carol has nothing.
 * The expected answer of every cell comes from the policy as Kubernetes documents it,
 * written out here independently of the server's rule engine; each cell is one real
 * request, so there is neither an unexpected allow nor an unexpected deny.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RbacMatrixTest extends ApiTestSupport {

    static final Map<String, String> TOKENS = Map.of("alice", "alice-token", "bob", "bob-token", "carol", "carol-token",
            "victor", "victor-token");
    static final Map<String, String> TEAM_NAMESPACE = Map.of("alice", "matrix-a", "bob", "matrix-b");
    /** What the admin role lets a team do in its namespace (all verbs). */
    static final Set<String> ADMIN = Set.of("pods", "configmaps", "secrets", "deployments", "rolebindings",
            "serviceaccounts");
    /** What the view role lets auditors read everywhere: no secrets, no RBAC objects, no nodes. */
    static final Set<String> VIEW = Set.of("pods", "configmaps", "deployments", "serviceaccounts", "namespaces");
    static final Set<String> READ = Set.of("get", "list", "watch");

    record Resource(String group, String plural, boolean namespaced, String body) {
        String collection(String ns) {
            String root = group.isEmpty() ? "/api/v1" : "/apis/" + group + "/v1";
            return namespaced && !ns.isEmpty() ? root + "/namespaces/" + ns + "/" + plural : root + "/" + plural;
        }
    }

    static final List<Resource> RESOURCES = List.of(
            new Resource("", "pods", true, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"m\"},"
                    + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}"),
            new Resource("", "configmaps", true, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"m\"}}"),
            new Resource("", "secrets", true, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"m\"}}"),
            new Resource("", "serviceaccounts", true,
                    "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"m\"}}"),
            new Resource("apps", "deployments", true, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":"
                    + "{\"name\":\"m\"},\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":"
                    + "{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}"),
            new Resource("rbac.authorization.k8s.io", "rolebindings", true, "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                    + "\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"m\"},\"roleRef\":{\"apiGroup\":"
                    + "\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"view\"},\"subjects\":[{\"kind\":"
                    + "\"User\",\"name\":\"carol\",\"apiGroup\":\"rbac.authorization.k8s.io\"}]}"),
            new Resource("", "nodes", false, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"m\"}}"),
            new Resource("", "namespaces", false, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"m\"}}"));

    @BeforeAll
    void policy() {
        for (String ns : List.of("matrix-a", "matrix-b")) {
            assertThat(createNamespace(ns).code()).isIn(201, 409);
        }
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/matrix-a/rolebindings", binding("RoleBinding",
                "team-a-admin", "admin", "team-a")).code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/matrix-b/rolebindings", binding("RoleBinding",
                "team-b-admin", "admin", "team-b")).code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding("ClusterRoleBinding",
                "auditors-view", "view", "auditors")).code()).isIn(201, 409);
        eventually(() -> {
            assertThat(can("alice", "list", "", "pods", "matrix-a")).isTrue();
            assertThat(can("bob", "list", "", "pods", "matrix-b")).isTrue();
            assertThat(can("victor", "list", "", "pods", "")).isTrue();
        });
    }

    static String binding(String kind, String name, String role, String group) {
        return "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"" + kind + "\",\"metadata\":{\"name\":\"" + name
                + "\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\""
                + role + "\"},\"subjects\":[{\"kind\":\"Group\",\"name\":\"" + group
                + "\",\"apiGroup\":\"rbac.authorization.k8s.io\"}]}";
    }

    /** The policy, as an expectation: who may do what, where. */
    static boolean expected(String user, String verb, String resource, String namespace) {
        boolean read = READ.contains(verb);
        if (user.equals("victor")) {
            return read && VIEW.contains(resource);
        }
        String team = TEAM_NAMESPACE.get(user);
        if (team == null || !team.equals(namespace)) {
            return false;
        }
        return ADMIN.contains(resource) || (resource.equals("namespaces") && read);
    }

    static Stream<Arguments> cells() {
        List<Arguments> rows = new ArrayList<>();
        for (String user : List.of("alice", "bob", "carol", "victor")) {
            for (Resource r : RESOURCES) {
                for (String verb : List.of("get", "list", "watch", "create", "delete")) {
                    List<String> scopes;
                    if (r.plural().equals("namespaces")) {
                        // a namespace's own requests count as in that namespace; the list is cluster-wide
                        scopes = verb.equals("list") || verb.equals("watch") || verb.equals("create") ? List.of("")
                                : List.of("matrix-a", "matrix-b");
                    } else if (r.namespaced()) {
                        scopes = verb.equals("create") ? List.of("matrix-a", "matrix-b")
                                : List.of("matrix-a", "matrix-b", "");
                    } else {
                        scopes = List.of("");
                    }
                    for (String ns : scopes) {
                        boolean allowed = expected(user, verb, r.plural(), ns);
                        rows.add(Arguments.of(user + (allowed ? " may " : " may not ") + verb + " " + r.plural()
                                + (ns.isEmpty() ? " cluster-wide" : " in " + ns), user, verb, r, ns, allowed));
                    }
                }
            }
        }
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cells")
    void everyCellIsAnsweredAsThePolicySays(String name, String user, String verb, Resource r, String ns,
                                            boolean allowed) {
        String token = TOKENS.get(user);
        Response resp = switch (verb) {
            case "get" -> callAs(token, "GET", r.plural().equals("namespaces") ? "/api/v1/namespaces/" + ns
                    : r.collection(ns) + "/no-such-object", null, null, "application/json");
            case "list" -> callAs(token, "GET", r.collection(ns), null, null, "application/json");
            case "create" -> callAs(token, "POST", r.collection(ns) + "?dryRun=All", "application/json", r.body(),
                    "application/json");
            case "delete" -> callAs(token, "DELETE", r.plural().equals("namespaces") ? "/api/v1/namespaces/" + ns
                    + "?dryRun=All" : r.collection(ns) + "/no-such-object", null, null, "application/json");
            case "watch" -> null;
            default -> throw new IllegalArgumentException(verb);
        };
        if (resp == null) {
            // a watch is authorized like any request; ask the same authorizer without holding a stream open
            assertThat(can(user, verb, r.group(), r.plural(), ns)).as(name).isEqualTo(allowed);
            return;
        }
        if (allowed) {
            assertThat(resp.code()).as(name + ": " + resp.body()).isNotIn(401, 403);
        } else {
            assertThat(resp.code()).as(name + ": " + resp.body()).isEqualTo(403);
            assertThat(resp.text("reason")).isEqualTo("Forbidden");
            assertThat(resp.text("message")).contains("User \"" + user + "\" cannot " + verb + " resource \"" + r.plural()
                    + "\" in API group \"" + r.group() + "\"");
        }
    }

    @Test
    void forbiddenMessagesAreWordedAsKubernetesWordsThem() {
        Response ns = callAs("bob-token", "GET", "/api/v1/namespaces/matrix-a/pods", null, null, "application/json");
        assertThat(ns.code()).isEqualTo(403);
        assertThat(ns.text("message")).isEqualTo("pods is forbidden: User \"bob\" cannot list resource \"pods\" in API"
                + " group \"\" in the namespace \"matrix-a\"");
        assertThat(ns.text("details.kind")).isEqualTo("pods");
        Response all = callAs("alice-token", "GET", "/apis/apps/v1/deployments", null, null, "application/json");
        assertThat(all.text("message")).isEqualTo("deployments.apps is forbidden: User \"alice\" cannot list resource"
                + " \"deployments\" in API group \"apps\" at the cluster scope");
        Response named = callAs("carol-token", "GET", "/api/v1/namespaces/matrix-a/secrets/s1", null, null, null);
        assertThat(named.text("message")).isEqualTo("secrets \"s1\" is forbidden: User \"carol\" cannot get resource"
                + " \"secrets\" in API group \"\" in the namespace \"matrix-a\"");
        Response path = callAs("carol-token", "GET", "/metrics-of-nothing", null, null, null);
        assertThat(path.code()).isEqualTo(403);
        assertThat(path.text("message")).isEqualTo("forbidden: User \"carol\" cannot get path \"/metrics-of-nothing\"");
    }

    @Test
    void everyAuthenticatedUserMayDiscoverTheApiAndAskAboutThemselves() {
        for (String path : List.of("/api", "/apis", "/api/v1", "/apis/apps/v1", "/openapi/v3", "/version")) {
            assertThat(callAs("carol-token", "GET", path, null, null, "application/json").code()).as(path).isEqualTo(200);
        }
        Response whoami = callAs("carol-token", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                "application/json", "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}",
                "application/json");
        assertThat(whoami.code()).isEqualTo(201);
        assertThat(whoami.text("status.userInfo.username")).isEqualTo("carol");
        assertThat(whoami.json().path("status").path("userInfo").path("groups").toString())
                .isEqualTo("[\"system:authenticated\"]");
    }

    @Test
    void aSubjectAccessReviewNeedsPermissionAndAnswersForAnyone() {
        String body = "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"spec\":{\"user\":"
                + "\"alice\",\"groups\":[\"team-a\"],\"resourceAttributes\":{\"verb\":\"delete\",\"resource\":\"secrets\","
                + "\"namespace\":\"matrix-a\"}}}";
        assertThat(callAs("alice-token", "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "application/json",
                body, null).code()).isEqualTo(403);
        Response asAdmin = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", body);
        assertThat(asAdmin.code()).isEqualTo(201);
        assertThat(asAdmin.json().path("status").path("allowed").asBoolean()).isTrue();
        assertThat(asAdmin.text("status.reason")).contains("RoleBinding \"matrix-a/team-a-admin\"");
        Response withoutGroup = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", body.replace(
                ",\"groups\":[\"team-a\"]", ""));
        assertThat(withoutGroup.json().path("status").path("allowed").asBoolean()).isFalse();
        Response neither = post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"spec\":{\"user\":\"x\"}}");
        assertThat(neither.code()).isEqualTo(422);
        assertThat(neither.text("message")).contains("exactly one of nonResourceAttributes or resourceAttributes");
    }

    @Test
    void aRulesReviewListsWhatTheTeamMayDoInItsNamespace() {
        Response r = callAs("alice-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                "application/json", "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectRulesReview\","
                        + "\"spec\":{\"namespace\":\"matrix-a\"}}", null);
        assertThat(r.code()).isEqualTo(201);
        String rules = r.json().path("status").path("resourceRules").toString();
        assertThat(rules).contains("\"secrets\"", "\"rolebindings\"", "\"selfsubjectaccessreviews\"");
        Response elsewhere = callAs("alice-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                "application/json", "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectRulesReview\","
                        + "\"spec\":{\"namespace\":\"matrix-b\"}}", null);
        assertThat(elsewhere.json().path("status").path("resourceRules").toString()).doesNotContain("\"secrets\"");
    }

    @Test
    void aClusterRoleLabelledForAggregationExtendsTheAggregatedRole() {
        assertThat(can("victor", "get", "", "limitranges", "matrix-a")).isTrue();
        assertThat(can("victor", "get", "coordination.k8s.io", "leases", "matrix-a")).as("leases are edit's, as in"
                + " Kubernetes").isFalse();
        assertThat(can("victor", "get", "", "resourcequotas", "matrix-a")).isTrue();
        assertThat(can("victor", "list", "admissionregistration.k8s.io", "validatingwebhookconfigurations", ""))
                .isFalse();
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/clusterroles", "{\"apiVersion\":"
                + "\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"webhook-viewer\","
                + "\"labels\":{\"rbac.authorization.k8s.io/aggregate-to-view\":\"true\"}},\"rules\":[{\"apiGroups\":"
                + "[\"admissionregistration.k8s.io\"],\"resources\":[\"validatingwebhookconfigurations\"],\"verbs\":"
                + "[\"get\",\"list\"]}]}").code()).isIn(201, 409);
        eventually(() -> assertThat(can("victor", "list", "admissionregistration.k8s.io",
                "validatingwebhookconfigurations", "")).isTrue());
        // and the union is written into the aggregated roles, for people to read
        eventually(() -> assertThat(get("/apis/rbac.authorization.k8s.io/v1/clusterroles/view").json().path("rules")
                .toString()).contains("validatingwebhookconfigurations"));
        assertThat(get("/apis/rbac.authorization.k8s.io/v1/clusterroles/admin").json().path("rules").toString())
                .contains("\"secrets\"", "\"rolebindings\"", "\"pods\"");
        // edit and admin aggregate view, so the teams' admins see them too (in their namespace)
        assertThat(can("alice", "get", "admissionregistration.k8s.io", "validatingwebhookconfigurations", "matrix-a"))
                .isTrue();
        assertThat(delete("/apis/rbac.authorization.k8s.io/v1/clusterroles/webhook-viewer").code()).isEqualTo(200);
        eventually(() -> assertThat(can("victor", "list", "admissionregistration.k8s.io",
                "validatingwebhookconfigurations", "")).isFalse());
        eventually(() -> assertThat(get("/apis/rbac.authorization.k8s.io/v1/clusterroles/view").json().path("rules")
                .toString()).doesNotContain("validatingwebhookconfigurations"));
    }

    /** As kube-apiserver: a list or watch whose field selector names one object is a request about that name. */
    @Test
    void resourceNamesAllowAListOrWatchOfThatNameByFieldSelector() {
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/matrix-b/roles", "{\"apiVersion\":"
                + "\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\",\"metadata\":{\"name\":\"one-config\"},"
                + "\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"resourceNames\":[\"settings\"],"
                + "\"verbs\":[\"get\",\"list\",\"watch\",\"deletecollection\"]}]}").code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/matrix-b/rolebindings", "{\"apiVersion\":"
                + "\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"carol-one-config\"},"
                + "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"one-config\"},"
                + "\"subjects\":[{\"kind\":\"User\",\"name\":\"carol\",\"apiGroup\":\"rbac.authorization.k8s.io\"}]}")
                .code()).isIn(201, 409);
        String cms = "/api/v1/namespaces/matrix-b/configmaps";
        eventually(() -> assertThat(callAs("carol-token", "GET", cms + "?fieldSelector=metadata.name%3Dsettings",
                null, null, "application/json").code()).isEqualTo(200));
        assertThat(callAs("carol-token", "GET", cms + "?fieldSelector=metadata.name%3Dsettings&watch=true"
                + "&timeoutSeconds=1", null, null, "application/json").code()).isEqualTo(200);
        Response all = callAs("carol-token", "GET", cms, null, null, "application/json");
        assertThat(all.code()).isEqualTo(403);
        assertThat(all.text("message")).isEqualTo("configmaps is forbidden: User \"carol\" cannot list resource"
                + " \"configmaps\" in API group \"\" in the namespace \"matrix-b\"");
        assertThat(callAs("carol-token", "GET", cms + "?fieldSelector=metadata.name%3Dother", null, null,
                "application/json").code()).isEqualTo(403);
        assertThat(callAs("carol-token", "DELETE", cms + "?fieldSelector=metadata.name%3Dsettings", null, null,
                "application/json").code()).as("a deletecollection stays about the collection").isEqualTo(403);
    }

    @Test
    void aLocalSubjectAccessReviewAsksWithinItsNamespace() {
        String body = "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"LocalSubjectAccessReview\",\"spec\":"
                + "{\"user\":\"bob\",\"groups\":[\"team-b\"],\"resourceAttributes\":{\"verb\":\"delete\","
                + "\"resource\":\"pods\"}}}";
        Response inB = callAs("bob-token", "POST", "/apis/authorization.k8s.io/v1/namespaces/matrix-b/"
                + "localsubjectaccessreviews", "application/json", body, null);
        assertThat(inB.code()).as(inB.body()).isEqualTo(201);
        assertThat(inB.json().path("status").path("allowed").asBoolean()).isTrue();
        assertThat(inB.text("spec.resourceAttributes.namespace")).isEqualTo("matrix-b");
        assertThat(callAs("bob-token", "POST", "/apis/authorization.k8s.io/v1/namespaces/matrix-a/"
                + "localsubjectaccessreviews", "application/json", body, null).code()).as("only admins of the namespace"
                + " may ask").isEqualTo(403);
        Response mismatch = post("/apis/authorization.k8s.io/v1/namespaces/matrix-b/localsubjectaccessreviews",
                body.replace("\"resource\":\"pods\"", "\"resource\":\"pods\",\"namespace\":\"matrix-a\""));
        assertThat(mismatch.code()).isEqualTo(422);
    }

    private boolean can(String user, String verb, String group, String resource, String ns) {
        Response r = callAs(TOKENS.get(user), "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                "application/json", "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SelfSubjectAccessReview\","
                        + "\"spec\":{\"resourceAttributes\":{\"verb\":\"" + verb + "\",\"group\":\"" + group
                        + "\",\"resource\":\"" + resource + "\",\"namespace\":\"" + ns + "\"}}}", "application/json");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        return r.json().path("status").path("allowed").asBoolean();
    }
}
