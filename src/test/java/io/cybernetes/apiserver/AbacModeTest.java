package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server whose authorization mode is Node,RBAC,ABAC with a policy file: what RBAC does
 * not allow, an ABAC policy may; what neither allows is forbidden with both reasons.
 */
@TestPropertySource(properties = {
        "cybernetes.auth.authorization-mode=Node,RBAC,ABAC",
        "cybernetes.auth.authorization-policy-file=./src/test/resources/abac/policy.jsonl",
        // a data directory of its own: the shared one's kubeconfig must keep naming the shared server
        "cybernetes.auth.data-dir=./target/test-data/abac",
        "spring.datasource.url=jdbc:h2:mem:abac;DB_CLOSE_DELAY=-1"})
class AbacModeTest extends ApiTestSupport {

    @Test
    void abacPoliciesAllowWhatRbacDoesNot() {
        assertThat(createNamespace("abac-read").code()).isIn(201, 409);
        String cms = "/api/v1/namespaces/abac-read/configmaps";
        assertThat(callAs("carol-token", "GET", cms, null, null, "application/json").code())
                .as("carol reads the namespace by her readonly policy").isEqualTo(200);
        Response refused = callAs("carol-token", "POST", cms, "application/json",
                "{\"metadata\":{\"name\":\"c\"}}", "application/json");
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.text("message")).isEqualTo("configmaps is forbidden: User \"carol\" cannot create resource"
                + " \"configmaps\" in API group \"\" in the namespace \"abac-read\": No policy matched.");
        assertThat(callAs("victor-token", "POST", cms, "application/json", "{\"metadata\":{\"name\":\"v\"}}",
                "application/json").code()).as("victor's group may write configmaps there").isEqualTo(201);
        assertThat(callAs("victor-token", "GET", "/api/v1/namespaces/abac-read/secrets", null, null,
                "application/json").code()).as("but nothing else").isEqualTo(403);
        assertThat(callAs("alice-token", "GET", "/metrics", null, null, "text/plain").code())
                .as("every authenticated user reads /metrics by a path policy").isEqualTo(200);
    }
}
