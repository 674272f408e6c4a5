package io.cybernetes.apiserver;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /metrics} in the Prometheus text format under Kubernetes' names, as Grafana's
 * control-plane dashboards query them, for those allowed to read it (system:monitoring).
 */
class MetricsApiTest extends SimulatedClusterSupport {

    @Test
    void theControlPlanesMetricsAreWherePrometheusLooksUnderKubernetesNames() throws Exception {
        String ns = "metrics";
        assertThat(createNamespace(ns).code()).isIn(201, 409);
        post("/api/v1/namespaces/" + ns + "/configmaps", "{\"metadata\":{\"name\":\"counted\"}}");
        get("/api/v1/namespaces/" + ns + "/pods");
        assertThat(post("/apis/apps/v1/namespaces/" + ns + "/deployments", """
                {"metadata":{"name":"m"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"m"}},
                 "template":{"metadata":{"labels":{"app":"m"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}""")
                .code()).isEqualTo(201);
        try (WatchStream w = new WatchStream(HTTP, url("/api/v1/namespaces/" + ns + "/configmaps?watch=true"), token(),
                "application/json")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> get("/metrics").body()
                    .contains("scheduler_schedule_attempts_total{result=\"scheduled\",profile=\"default-scheduler\"}"));
            Response m = get("/metrics");
            assertThat(m.code()).isEqualTo(200);
            assertThat(m.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain;version=0.0.4");
            assertThat(m.body()).contains(
                    "# TYPE apiserver_request_total counter",
                    "apiserver_request_total{verb=\"POST\",dry_run=\"\",group=\"\",version=\"v1\",resource=\"configmaps\","
                            + "subresource=\"\",scope=\"namespace\",component=\"apiserver\",code=\"201\"}",
                    "apiserver_request_total{verb=\"LIST\",dry_run=\"\",group=\"\",version=\"v1\",resource=\"pods\"",
                    "# TYPE apiserver_request_duration_seconds histogram",
                    "apiserver_request_duration_seconds_bucket{verb=\"LIST\"",
                    "le=\"+Inf\"}",
                    "apiserver_longrunning_requests{component=\"apiserver\",group=\"\",resource=\"configmaps\"",
                    "apiserver_storage_objects{resource=\"deployments.apps\"}",
                    "etcd_request_duration_seconds_count{operation=\"create\",type=\"configmaps\"}",
                    "workqueue_depth{name=\"deployment\"}",
                    "workqueue_adds_total{name=\"replicaset\"}",
                    "scheduler_pending_pods{queue=\"active\"}",
                    "# TYPE scheduler_scheduling_attempt_duration_seconds histogram",
                    "# TYPE apiserver_admission_controller_admission_duration_seconds histogram",
                    "apiserver_admission_controller_admission_duration_seconds_count{name=\"LimitRanger\","
                            + "operation=\"CREATE\",rejected=\"false\",type=\"admit\"}",
                    "apiserver_admission_controller_admission_duration_seconds_bucket{name=\"ResourceQuota\","
                            + "operation=\"CREATE\",rejected=\"false\",type=\"validate\",le=\"0.005\"}",
                    "apiserver_admission_step_admission_duration_seconds_count{operation=\"CREATE\","
                            + "rejected=\"false\",type=\"validate\"}");
        }
        assertThat(callAs("prometheus-token", "GET", "/metrics", null, null, "text/plain").code())
                .as("system:monitoring reads it").isEqualTo(200);
        Response alice = callAs("alice-token", "GET", "/metrics", null, null, "application/json");
        assertThat(alice.code()).isEqualTo(403);
        assertThat(alice.text("message")).isEqualTo("forbidden: User \"alice\" cannot get path \"/metrics\"");
        assertThat(callAs(null, "GET", "/metrics", null, null, "text/plain").code()).isEqualTo(401);
    }
}
