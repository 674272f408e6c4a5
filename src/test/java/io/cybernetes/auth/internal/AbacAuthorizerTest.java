package io.cybernetes.auth.internal;

import io.cybernetes.auth.Authorizer.Decision;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** ABAC policies as kube-apiserver reads and applies them: subjects, readonly, resources, paths, v0, bad lines. */
class AbacAuthorizerTest {

    static final UserInfo ALICE = UserInfo.authenticated("alice", "", List.of("dev"));
    static final UserInfo BOB = UserInfo.authenticated("bob", "", List.of("ops"));

    static AbacAuthorizer of(String... lines) {
        return new AbacAuthorizer(java.util.Arrays.stream(lines).map(AbacAuthorizer::parse).toList());
    }

    static String policy(String spec) {
        return "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":" + spec + "}";
    }

    static boolean allowed(AbacAuthorizer z, UserInfo user, String verb, String group, String resource,
                           String subresource, String namespace) {
        return z.authorize(RequestAttributes.resource(user, verb, group, resource, subresource, namespace, "x"))
                .outcome() == Decision.Outcome.ALLOW;
    }

    @Test
    void aReadOnlyPolicyAllowsReadingItsResourcesInItsNamespaceOnly() {
        AbacAuthorizer z = of(policy("{\"user\":\"alice\",\"namespace\":\"team\",\"resource\":\"pods\",\"apiGroup\":\"\","
                + "\"readonly\":true}"));
        assertThat(allowed(z, ALICE, "get", "", "pods", "", "team")).isTrue();
        assertThat(allowed(z, ALICE, "watch", "", "pods", "", "team")).isTrue();
        assertThat(allowed(z, ALICE, "get", "", "pods", "log", "team")).as("the subresource is not looked at").isTrue();
        assertThat(allowed(z, ALICE, "create", "", "pods", "", "team")).isFalse();
        assertThat(allowed(z, ALICE, "get", "", "pods", "", "other")).isFalse();
        assertThat(allowed(z, ALICE, "get", "", "services", "", "team")).isFalse();
        assertThat(allowed(z, ALICE, "get", "apps", "pods", "", "team")).isFalse();
        assertThat(allowed(z, BOB, "get", "", "pods", "", "team")).isFalse();
        assertThat(z.authorize(RequestAttributes.resource(BOB, "get", "", "pods", "", "team", "x")))
                .isEqualTo(Decision.noOpinion("No policy matched."));
    }

    @Test
    void groupsAndWildcardsMatchAsKubernetesConvertsThem() {
        AbacAuthorizer byGroup = of(policy("{\"group\":\"ops\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\"}"));
        assertThat(allowed(byGroup, BOB, "delete", "apps", "deployments", "", "any")).isTrue();
        assertThat(allowed(byGroup, ALICE, "get", "", "pods", "", "any")).isFalse();
        AbacAuthorizer everyone = of(policy("{\"user\":\"*\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\","
                + "\"readonly\":true}"));
        assertThat(allowed(everyone, ALICE, "list", "", "pods", "", "")).as("every authenticated user").isTrue();
        assertThat(allowed(everyone, UserInfo.anonymous(), "list", "", "pods", "", "")).as("not anonymous").isFalse();
        AbacAuthorizer both = of(policy("{\"user\":\"alice\",\"group\":\"ops\",\"namespace\":\"*\",\"resource\":\"*\","
                + "\"apiGroup\":\"*\"}"));
        assertThat(allowed(both, ALICE, "get", "", "pods", "", "a")).as("user and group both must match").isFalse();
        AbacAuthorizer nobody = of(policy("{\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\"}"));
        assertThat(allowed(nobody, ALICE, "get", "", "pods", "", "a")).as("a v1beta1 policy without a subject").isFalse();
    }

    @Test
    void nonResourcePathsMatchExactlyByWildcardOrByPrefix() {
        AbacAuthorizer z = of(policy("{\"user\":\"alice\",\"nonResourcePath\":\"/healthz/*\",\"readonly\":true}"),
                policy("{\"user\":\"alice\",\"nonResourcePath\":\"/version\"}"));
        assertThat(z.authorize(RequestAttributes.nonResource(ALICE, "get", "/healthz/etcd")).allowed()).isTrue();
        assertThat(z.authorize(RequestAttributes.nonResource(ALICE, "get", "/version")).allowed()).isTrue();
        assertThat(z.authorize(RequestAttributes.nonResource(ALICE, "get", "/metrics")).allowed()).isFalse();
        assertThat(z.authorize(RequestAttributes.nonResource(ALICE, "post", "/healthz/etcd")).allowed()).isFalse();
        assertThat(allowed(z, ALICE, "get", "", "pods", "", "a")).as("a path policy is not a resource policy").isFalse();
    }

    @Test
    void theUnversionedFormMatchesEveryAuthenticatedUserAndEverythingItLeavesOut() {
        AbacAuthorizer z = of("{\"readonly\": true}", "{\"user\":\"bob\",\"resource\":\"pods\"}");
        assertThat(allowed(z, ALICE, "get", "apps", "deployments", "", "a")).isTrue();
        assertThat(z.authorize(RequestAttributes.nonResource(ALICE, "get", "/metrics")).allowed()).isTrue();
        assertThat(allowed(z, ALICE, "create", "", "pods", "", "a")).isFalse();
        assertThat(allowed(z, BOB, "create", "", "pods", "", "a")).isTrue();
    }

    @Test
    void aFileSkipsCommentsAndBlankLinesAndNamesTheLineThatIsNotAPolicy(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("good.jsonl");
        Files.writeString(good, "# comment\n\n" + policy("{\"user\":\"alice\",\"namespace\":\"*\",\"resource\":\"*\","
                + "\"apiGroup\":\"*\"}") + "\n");
        assertThat(allowed(AbacAuthorizer.fromFile(good), ALICE, "create", "", "pods", "", "a")).isTrue();
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, "# comment\n" + policy("{\"user\":\"alice\"}") + "\n{\"apiVersion\":\"abac/v2\"}\n");
        assertThatThrownBy(() -> AbacAuthorizer.fromFile(bad)).hasMessageContaining("bad.jsonl line 3: unknown"
                + " apiVersion \"abac/v2\"");
        Files.writeString(bad, "{not json\n");
        assertThatThrownBy(() -> AbacAuthorizer.fromFile(bad)).hasMessageContaining("line 1:");
    }

    @Test
    void theModesAreCheckedWhenTheServerStartsAndAskedInTheirOrder(@TempDir Path dir) throws Exception {
        List<io.cybernetes.auth.AuthProperties.AuthorizationMode> abacOnly =
                List.of(io.cybernetes.auth.AuthProperties.AuthorizationMode.ABAC);
        assertThatThrownBy(() -> new AuthorizerChain(new ClusterPolicy(), abacOnly, ""))
                .hasMessage("authorization mode ABAC needs cybernetes.auth.authorization-policy-file");
        assertThatThrownBy(() -> new AuthorizerChain(new ClusterPolicy(),
                List.of(io.cybernetes.auth.AuthProperties.AuthorizationMode.RBAC), "policy.jsonl"))
                .hasMessage("cannot specify cybernetes.auth.authorization-policy-file without mode ABAC");
        Path file = dir.resolve("p.jsonl");
        Files.writeString(file, policy("{\"user\":\"alice\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\"}"));
        RequestAttributes create = RequestAttributes.resource(ALICE, "create", "", "pods", "", "a", "p");
        assertThat(new AuthorizerChain(new ClusterPolicy(), List.of(
                io.cybernetes.auth.AuthProperties.AuthorizationMode.AlwaysDeny,
                io.cybernetes.auth.AuthProperties.AuthorizationMode.ABAC), file.toString()).authorize(create).allowed())
                .as("AlwaysDeny has no opinion: the next mode decides").isTrue();
        assertThat(new AuthorizerChain(new ClusterPolicy(), List.of(
                io.cybernetes.auth.AuthProperties.AuthorizationMode.AlwaysDeny), "").authorize(create))
                .isEqualTo(Decision.noOpinion("Everything is forbidden."));
    }
}
