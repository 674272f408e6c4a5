package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Impersonation as kube-apiserver does it: each user, group, uid and extra asked for is
 * authorized as {@code impersonate} first, and the request then runs as that user alone.
 */
class ImpersonationTest extends ApiTestSupport {

    static final String REVIEW = "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}";
    static final String REVIEWS = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

    private Response whoAmI(String bearer, String... headers) {
        return callWithHeaders(bearer, "POST", REVIEWS, "application/json", REVIEW, "application/json", headers);
    }

    @Test
    void theAdminActsAsAnotherUserWithTheGroupsUidAndExtrasAskedFor() {
        Response r = whoAmI(token(), "Impersonate-User", "bob", "Impersonate-Group", "team-b",
                "Impersonate-Group", "people", "Impersonate-Uid", "u-bob",
                "Impersonate-Extra-Scopes", "view", "Impersonate-Extra-Example.com%2fteam", "blue");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        JsonNode user = r.json().path("status").path("userInfo");
        assertThat(user.path("username").asString()).isEqualTo("bob");
        assertThat(user.path("uid").asString()).isEqualTo("u-bob");
        assertThat(user.path("groups").toString()).isEqualTo("[\"team-b\",\"people\",\"system:authenticated\"]");
        assertThat(user.path("extra").path("scopes").toString()).isEqualTo("[\"view\"]");
        assertThat(user.path("extra").path("example.com/team").toString()).isEqualTo("[\"blue\"]");
    }

    @Test
    void aServiceAccountIsImpersonatedWithItsGroups() {
        Response r = whoAmI(token(), "Impersonate-User", "system:serviceaccount:kube-system:builder");
        assertThat(r.code()).as(r.body()).isEqualTo(201);
        JsonNode user = r.json().path("status").path("userInfo");
        assertThat(user.path("username").asString()).isEqualTo("system:serviceaccount:kube-system:builder");
        assertThat(user.path("groups").toString()).isEqualTo("[\"system:serviceaccounts\","
                + "\"system:serviceaccounts:kube-system\",\"system:authenticated\"]");
    }

    @Test
    void theImpersonatedUserHasOnlyItsOwnRights() {
        Response r = callWithHeaders(token(), "GET", "/api/v1/namespaces/kube-system/secrets", null, null,
                "application/json", "Impersonate-User", "bob");
        assertThat(r.code()).isEqualTo(403);
        assertThat(r.text("message")).isEqualTo("secrets is forbidden: User \"bob\" cannot list resource \"secrets\""
                + " in API group \"\" in the namespace \"kube-system\"");
    }

    @Test
    void aUserWithoutImpersonateRightsIsRefusedForTheFirstThingAskedFor() {
        Response user = whoAmI("carol-token", "Impersonate-User", "bob");
        assertThat(user.code()).isEqualTo(403);
        assertThat(user.text("message")).isEqualTo("users \"bob\" is forbidden: User \"carol\" cannot impersonate"
                + " resource \"users\" in API group \"\" at the cluster scope");
        assertThat(user.json().path("details").path("kind").asString()).isEqualTo("users");

        Response sa = whoAmI("carol-token", "Impersonate-User", "system:serviceaccount:team-a:robot");
        assertThat(sa.code()).isEqualTo(403);
        assertThat(sa.text("message")).isEqualTo("serviceaccounts \"robot\" is forbidden: User \"carol\" cannot"
                + " impersonate resource \"serviceaccounts\" in API group \"\" in the namespace \"team-a\"");
    }

    @Test
    void groupsUidsAndExtrasAreEachAuthorized() {
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/clusterroles", "{\"metadata\":{\"name\":\"impersonate-bob\"},"
                + "\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"users\"],\"verbs\":[\"impersonate\"],"
                + "\"resourceNames\":[\"bob\"]}]}").code()).isIn(201, 409);
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", RbacMatrixTest.binding(
                "ClusterRoleBinding", "victor-impersonates-bob", "impersonate-bob", "auditors")).code()).isIn(201, 409);
        eventually(() -> assertThat(whoAmI("victor-token", "Impersonate-User", "bob").code()).isEqualTo(201));

        Response group = whoAmI("victor-token", "Impersonate-User", "bob", "Impersonate-Group", "system:masters");
        assertThat(group.code()).isEqualTo(403);
        assertThat(group.text("message")).isEqualTo("groups \"system:masters\" is forbidden: User \"victor\" cannot"
                + " impersonate resource \"groups\" in API group \"\" at the cluster scope");
        Response uid = whoAmI("victor-token", "Impersonate-User", "bob", "Impersonate-Uid", "u-1");
        assertThat(uid.code()).isEqualTo(403);
        assertThat(uid.text("message")).isEqualTo("uids.authentication.k8s.io \"u-1\" is forbidden: User \"victor\""
                + " cannot impersonate resource \"uids\" in API group \"authentication.k8s.io\" at the cluster scope");
        Response extra = whoAmI("victor-token", "Impersonate-User", "bob", "Impersonate-Extra-Scopes", "view");
        assertThat(extra.code()).isEqualTo(403);
        assertThat(extra.text("message")).isEqualTo("userextras.authentication.k8s.io \"view\" is forbidden: User"
                + " \"victor\" cannot impersonate resource \"userextras/scopes\" in API group \"authentication.k8s.io\""
                + " at the cluster scope");
        Response other = whoAmI("victor-token", "Impersonate-User", "alice");
        assertThat(other.code()).as("only the user named in the rule").isEqualTo(403);
    }

    @Test
    void groupsWithoutAUserAreAnError() {
        Response r = whoAmI(token(), "Impersonate-Group", "team-a");
        assertThat(r.code()).isEqualTo(500);
        assertThat(r.text("reason")).isEqualTo("InternalError");
        assertThat(r.text("message")).isEqualTo("Internal error occurred: requested [Group team-a] without"
                + " impersonating a user");
    }

    @Test
    void impersonatingAnonymousAddsUnauthenticatedNotAuthenticated() {
        // every authenticated user may review itself; anonymous, not being one, may not
        Response r = whoAmI(token(), "Impersonate-User", "system:anonymous");
        assertThat(r.code()).as(r.body()).isEqualTo(403);
        assertThat(r.text("message")).isEqualTo("selfsubjectreviews.authentication.k8s.io is forbidden: User"
                + " \"system:anonymous\" cannot create resource \"selfsubjectreviews\" in API group"
                + " \"authentication.k8s.io\" at the cluster scope");
        Response bob = whoAmI(token(), "Impersonate-User", "bob");
        assertThat(bob.json().path("status").path("userInfo").path("groups").toString())
                .isEqualTo("[\"system:authenticated\"]");
    }
}
