package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/** The bootstrap policy is reconciled at start: what is missing comes back, what people opted out of is left alone. */
class BootstrapPolicyReconcilerTest extends ApiTestSupport {

    static final String RBAC = "/apis/rbac.authorization.k8s.io/v1/";

    @Autowired
    ResourceService service;

    @Autowired
    ResourceRegistry registry;

    @Test
    void missingRolesRulesAndSubjectsAreRestoredButAnOptOutIsRespected() {
        assertThat(delete(RBAC + "clusterroles/system:public-info-viewer").code()).isEqualTo(200);
        assertThat(patch(RBAC + "clusterrolebindings/system:basic-user", "application/merge-patch+json",
                "{\"subjects\":[]}").code()).isEqualTo(200);
        assertThat(patch(RBAC + "clusterroles/system:discovery", "application/merge-patch+json",
                "{\"rules\":[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/api\"]}]}").code()).isEqualTo(200);
        assertThat(patch(RBAC + "clusterroles/system:kube-scheduler", "application/merge-patch+json",
                "{\"metadata\":{\"annotations\":{\"rbac.authorization.kubernetes.io/autoupdate\":\"false\"}},"
                        + "\"rules\":[]}").code()).isEqualTo(200);

        new BootstrapPolicyReconciler(service, registry).reconcile();

        assertThat(get(RBAC + "clusterroles/system:public-info-viewer").code()).isEqualTo(200);
        assertThat(get(RBAC + "clusterrolebindings/system:basic-user").json().path("subjects").toString())
                .contains("system:authenticated");
        assertThat(get(RBAC + "clusterroles/system:discovery").json().path("rules").toString())
                .contains("/openapi/*", "/version");
        assertThat(get(RBAC + "clusterroles/system:kube-scheduler").json().path("rules").size())
                .as("autoupdate false: left as the admin made it").isZero();
        // put it back for the other tests
        patch(RBAC + "clusterroles/system:kube-scheduler", "application/merge-patch+json",
                "{\"metadata\":{\"annotations\":{\"rbac.authorization.kubernetes.io/autoupdate\":\"true\"}}}");
        new BootstrapPolicyReconciler(service, registry).reconcile();
        assertThat(get(RBAC + "clusterroles/system:kube-scheduler").json().path("rules").size()).isPositive();
    }
}
