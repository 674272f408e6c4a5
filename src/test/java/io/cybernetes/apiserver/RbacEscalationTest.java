package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nobody grants what they do not hold: the admin of a namespace may hand out roles
 * within their own rights there, but not cluster-admin, not rules on nodes, and not
 * bindings elsewhere, unless given {@code bind} or {@code escalate}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RbacEscalationTest extends ApiTestSupport {

    static final String NS = "escalation";
    static final String RBAC = "/apis/rbac.authorization.k8s.io/v1";

    @BeforeAll
    void teamAdmin() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        assertThat(post(RBAC + "/namespaces/" + NS + "/rolebindings", RbacMatrixTest.binding("RoleBinding",
                "team-a-admin", "admin", "team-a")).code()).isIn(201, 409);
        eventually(() -> assertThat(asAlice("GET", "/api/v1/namespaces/" + NS + "/secrets", null).code()).isEqualTo(200));
    }

    private Response asAlice(String method, String path, String body) {
        return callAs("alice-token", method, path, body == null ? null : "application/json", body, "application/json");
    }

    static String role(String name, String rule) {
        return "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\",\"metadata\":{\"name\":\"" + name
                + "\"},\"rules\":[" + rule + "]}";
    }

    static String roleBinding(String name, String roleKind, String role, String user) {
        return "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":\"" + name
                + "\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"" + roleKind + "\",\"name\":\""
                + role + "\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"" + user
                + "\",\"apiGroup\":\"rbac.authorization.k8s.io\"}]}";
    }

    @Test
    void aRoleWithinTheWritersRightsIsAllowed() {
        Response r = asAlice("POST", RBAC + "/namespaces/" + NS + "/roles", role("pod-reader",
                "{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\",\"list\"]}"));
        assertThat(r.code()).as(r.body()).isEqualTo(201);
    }

    @Test
    void aRoleGrantingMoreThanTheWriterHoldsIsForbidden() {
        Response r = asAlice("POST", RBAC + "/namespaces/" + NS + "/roles", role("node-reader",
                "{\"apiGroups\":[\"\"],\"resources\":[\"nodes\",\"pods\"],\"verbs\":[\"get\"]}"));
        assertThat(r.code()).isEqualTo(403);
        assertThat(r.text("message")).isEqualTo("roles.rbac.authorization.k8s.io \"node-reader\" is forbidden: user"
                + " \"alice\" (groups=[\"team-a\" \"system:authenticated\"]) is attempting to grant RBAC permissions not"
                + " currently held:\n{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\"]}");
        assertThat(get(RBAC + "/namespaces/" + NS + "/roles/node-reader").code()).isEqualTo(404);
    }

    @Test
    void bindingARoleTheWriterHoldsIsAllowedButNotClusterAdmin() {
        assertThat(asAlice("POST", RBAC + "/namespaces/" + NS + "/rolebindings",
                roleBinding("carol-edit", "ClusterRole", "edit", "carol")).code()).isEqualTo(201);
        Response admin = asAlice("POST", RBAC + "/namespaces/" + NS + "/rolebindings",
                roleBinding("carol-root", "ClusterRole", "cluster-admin", "carol"));
        assertThat(admin.code()).isEqualTo(403);
        assertThat(admin.text("message")).startsWith("rolebindings.rbac.authorization.k8s.io \"carol-root\" is forbidden:"
                + " user \"alice\"").contains("attempting to grant RBAC permissions not currently held");
        Response missing = asAlice("POST", RBAC + "/namespaces/" + NS + "/rolebindings",
                roleBinding("carol-ghost", "ClusterRole", "no-such-role", "carol"));
        assertThat(missing.code()).isEqualTo(403);
        assertThat(missing.text("message")).contains("clusterroles.rbac.authorization.k8s.io \"no-such-role\" not found");
    }

    @Test
    void aTeamCannotWriteRbacObjectsOutsideItsNamespace() {
        assertThat(asAlice("POST", RBAC + "/namespaces/default/rolebindings",
                roleBinding("x", "ClusterRole", "view", "alice")).code()).isEqualTo(403);
        assertThat(asAlice("POST", RBAC + "/clusterrolebindings", RbacMatrixTest.binding("ClusterRoleBinding", "x",
                "view", "team-a")).code()).isEqualTo(403);
        assertThat(asAlice("POST", RBAC + "/clusterroles", "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                + "\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"x\"}}").code()).isEqualTo(403);
    }

    @Test
    void bindAndEscalatePermissionsLiftTheChecks() {
        String ns = "escalation-granted";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        assertThat(post(RBAC + "/namespaces/" + ns + "/roles", role("rbac-manager",
                "{\"apiGroups\":[\"rbac.authorization.k8s.io\"],\"resources\":[\"roles\",\"rolebindings\"],"
                        + "\"verbs\":[\"create\",\"get\"]},"
                        + "{\"apiGroups\":[\"rbac.authorization.k8s.io\"],\"resources\":[\"clusterroles\"],"
                        + "\"verbs\":[\"bind\"],\"resourceNames\":[\"cluster-admin\"]},"
                        + "{\"apiGroups\":[\"rbac.authorization.k8s.io\"],\"resources\":[\"roles\"],\"verbs\":[\"escalate\"]}"))
                .code()).isIn(201, 409);
        assertThat(post(RBAC + "/namespaces/" + ns + "/rolebindings", roleBinding("alice-rbac", "Role", "rbac-manager",
                "alice")).code()).isIn(201, 409);
        eventually(() -> assertThat(asAlice("POST", RBAC + "/namespaces/" + ns + "/rolebindings?dryRun=All",
                roleBinding("root", "ClusterRole", "cluster-admin", "carol")).code()).isEqualTo(201));
        // bind on cluster-admin only: edit is still checked against alice's (few) rules there
        assertThat(asAlice("POST", RBAC + "/namespaces/" + ns + "/rolebindings",
                roleBinding("editor", "ClusterRole", "edit", "carol")).code()).isEqualTo(403);
        assertThat(asAlice("POST", RBAC + "/namespaces/" + ns + "/roles", role("anything",
                "{\"apiGroups\":[\"*\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}")).code()).isEqualTo(201);
    }
}
