package io.cybernetes.apiserver;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

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
        assertThat(post(RBAC + "/namespaces/" + NS + "/rolebindings", "{\"metadata\":{\"name\":\"ops-admins\"},"
                + "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
                + "\"name\":\"cluster-admin\"},\"subjects\":[{\"kind\":\"Group\",\"name\":\"ops\","
                + "\"apiGroup\":\"rbac.authorization.k8s.io\"}]}").code()).isIn(201, 409);
        assertThat(post(RBAC + "/namespaces/" + NS + "/roles", role("node-watcher",
                "{\"apiGroups\":[\"\"],\"resources\":[\"nodes\"],\"verbs\":[\"get\"]}")).code()).isIn(201, 409);
    }

    static final String ALICE_SUBJECT = "{\"kind\":\"User\",\"name\":\"alice\",\"apiGroup\":\"rbac.authorization.k8s.io\"}";

    static Stream<Arguments> waysToAddASubject() {
        String ops = "{\"kind\":\"Group\",\"name\":\"ops\",\"apiGroup\":\"rbac.authorization.k8s.io\"}";
        String subjects = "[" + ops + "," + ALICE_SUBJECT + "]";
        return Stream.of(
                Arguments.of("merge patch", "PATCH", "application/merge-patch+json", "{\"subjects\":" + subjects + "}"),
                Arguments.of("JSON patch", "PATCH", "application/json-patch+json",
                        "[{\"op\":\"add\",\"path\":\"/subjects/-\",\"value\":" + ALICE_SUBJECT + "}]"),
                Arguments.of("strategic merge patch", "PATCH", "application/strategic-merge-patch+json",
                        "{\"subjects\":" + subjects + "}"),
                Arguments.of("server-side apply", "PATCH", "application/apply-patch+yaml",
                        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\","
                                + "\"metadata\":{\"name\":\"ops-admins\"},\"roleRef\":{\"apiGroup\":"
                                + "\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"cluster-admin\"},"
                                + "\"subjects\":" + subjects + "}"),
                Arguments.of("PUT", "PUT", "application/json",
                        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\","
                                + "\"metadata\":{\"name\":\"ops-admins\"},\"roleRef\":{\"apiGroup\":"
                                + "\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"cluster-admin\"},"
                                + "\"subjects\":" + subjects + "}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("waysToAddASubject")
    void aTeamAdminCannotAddHerselfToABindingOfARoleSheDoesNotHold(String how, String method, String contentType,
                                                                    String body) {
        String path = RBAC + "/namespaces/" + NS + "/rolebindings/ops-admins"
                // (forced: the subjects are the creator's, so an unforced apply is a conflict before any escalation check)
                + (contentType.startsWith("application/apply") ? "?fieldManager=alice&force=true" : "");
        Response r = callAs("alice-token", method, path, contentType, body, "application/json");
        assertThat(r.code()).as(r.body()).isEqualTo(403);
        assertThat(r.text("message")).startsWith("rolebindings.rbac.authorization.k8s.io \"ops-admins\" is forbidden:"
                + " user \"alice\" (groups=[\"team-a\" \"system:authenticated\"]) is attempting to grant RBAC"
                + " permissions not currently held:");
        assertThat(get(RBAC + "/namespaces/" + NS + "/rolebindings/ops-admins").json().path("subjects").size())
                .isEqualTo(1);
        Response unlabel = callAs("alice-token", "PATCH", "/api/v1/namespaces/" + NS, "application/merge-patch+json",
                "{\"metadata\":{\"labels\":{\"pod-security.kubernetes.io/enforce\":null}}}", "application/json");
        assertThat(unlabel.code()).as("alice holds no more than before: " + unlabel.body()).isEqualTo(403);
    }

    @Test
    void aTeamAdminMayStillChangeWhatTheGarbageCollectorWritesOnABindingSheCouldNotCreate() {
        Response r = callAs("alice-token", "PATCH", RBAC + "/namespaces/" + NS + "/rolebindings/ops-admins",
                "application/merge-patch+json", "{\"metadata\":{\"finalizers\":[\"example.com/keep\"]}}",
                "application/json");
        assertThat(r.code()).as(r.body()).isEqualTo(200);
        assertThat(callAs("alice-token", "PATCH", RBAC + "/namespaces/" + NS + "/rolebindings/ops-admins",
                "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}", "application/json").code())
                .isEqualTo(200);
        Response label = callAs("alice-token", "PATCH", RBAC + "/namespaces/" + NS + "/rolebindings/ops-admins",
                "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"team\":\"a\"}}}", "application/json");
        assertThat(label.code()).as("any other change is checked").isEqualTo(403);
    }

    @Test
    void everyUpdateOfARoleGrantingMoreThanTheWriterHoldsIsChecked() {
        Response r = callAs("alice-token", "PATCH", RBAC + "/namespaces/" + NS + "/roles/node-watcher",
                "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"team\":\"a\"}}}", "application/json");
        assertThat(r.code()).as(r.body()).isEqualTo(403);
        assertThat(r.text("message")).startsWith("roles.rbac.authorization.k8s.io \"node-watcher\" is forbidden:")
                .endsWith("is attempting to grant RBAC permissions not currently held:\n"
                        + "{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\"]}");
        assertThat(get(RBAC + "/namespaces/" + NS + "/roles/node-watcher").json().path("metadata").has("labels"))
                .isFalse();
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
    void onlyClusterRolesMayNameNonResourceUrls() {
        Response r = post(RBAC + "/namespaces/" + NS + "/roles", role("health",
                "{\"nonResourceURLs\":[\"/healthz\",\"/livez\"],\"verbs\":[\"get\"]}"));
        assertThat(r.code()).isEqualTo(422);
        assertThat(r.text("message")).isEqualTo("Role.rbac.authorization.k8s.io \"health\" is invalid:"
                + " rules[0].nonResourceURLs: Invalid value: []string{\"/healthz\", \"/livez\"}: namespaced rules"
                + " cannot apply to non-resource URLs");
        assertThat(post(RBAC + "/clusterroles", "{\"metadata\":{\"name\":\"health-" + System.nanoTime() + "\"},"
                + "\"rules\":[{\"nonResourceURLs\":[\"/healthz\"],\"verbs\":[\"get\"]}]}").code()).isEqualTo(201);
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
