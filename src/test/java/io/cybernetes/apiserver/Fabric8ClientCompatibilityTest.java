package io.cybernetes.apiserver;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * fabric8's Kubernetes client against the running application, over HTTPS with the admin
 * kubeconfig, used as operators use it: informers with resync, {@code edit}, a Deployment
 * scaled and rolled out, leader election on a Lease, and its exceptions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Fabric8ClientCompatibilityTest extends SimulatedClusterSupport {

    static final String NS = "fabric8";
    KubernetesClient client;

    @BeforeAll
    void connect() throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        Config config = Config.fromKubeconfig(Files.readString(endpoints.adminKubeconfig()));
        client = new KubernetesClientBuilder().withConfig(config).build();
    }

    @AfterAll
    void close() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void anInformerSeesChangesAndResyncs() {
        List<String> seen = new CopyOnWriteArrayList<>();
        AtomicInteger resyncs = new AtomicInteger();
        SharedIndexInformer<ConfigMap> informer = client.configMaps().inNamespace(NS).withLabel("informed").inform(
                new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(ConfigMap cm) {
                        seen.add("add " + cm.getMetadata().getName());
                    }

                    @Override
                    public void onUpdate(ConfigMap old, ConfigMap cm) {
                        if (old.getMetadata().getResourceVersion().equals(cm.getMetadata().getResourceVersion())) {
                            resyncs.incrementAndGet();
                        } else {
                            seen.add("update " + cm.getMetadata().getName() + " " + cm.getData().get("k"));
                        }
                    }

                    @Override
                    public void onDelete(ConfigMap cm, boolean unknownFinalState) {
                        seen.add("delete " + cm.getMetadata().getName());
                    }
                }, 1000);
        try {
            client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata().withName("informed")
                    .addToLabels("informed", "yes").endMetadata().addToData("k", "1").build()).create();
            client.configMaps().inNamespace(NS).withName("informed").edit(cm -> {
                cm.getData().put("k", "2");
                return cm;
            });
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.contains("update informed 2"));
            // the cached object is handed to the handler again once a resync period has passed
            await().atMost(Duration.ofSeconds(10)).until(() -> resyncs.get() > 0);
            client.configMaps().inNamespace(NS).withName("informed").delete();
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.contains("delete informed"));
            assertThat(seen).containsExactly("add informed", "update informed 2", "delete informed");
            assertThat(informer.hasSynced()).isTrue();
            assertThat(informer.getStore().list()).isEmpty();
        } finally {
            informer.close();
        }
    }

    @Test
    void aDeploymentIsCreatedScaledAndRollsOut() {
        Deployment d = new DeploymentBuilder().withNewMetadata().withName("f8-web").endMetadata().withNewSpec()
                .withReplicas(1).withNewSelector().addToMatchLabels("app", "f8-web").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "f8-web").endMetadata().withNewSpec()
                .addNewContainer().withName("web").withImage("nginx:1.27").endContainer().endSpec().endTemplate()
                .endSpec().build();
        client.apps().deployments().inNamespace(NS).resource(d).create();
        client.apps().deployments().inNamespace(NS).withName("f8-web").scale(3);
        client.apps().deployments().inNamespace(NS).withName("f8-web").waitUntilCondition(x -> x != null
                && x.getStatus() != null && Integer.valueOf(3).equals(x.getStatus().getAvailableReplicas()),
                60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(client.pods().inNamespace(NS).withLabel("app", "f8-web").list().getItems()).hasSize(3)
                .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
    }

    @Test
    void leaderElectionOnALeaseMakesTheCandidateTheLeader() throws Exception {
        CompletableFuture<Void> leading = new CompletableFuture<>();
        var elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder().withName("f8-election")
                .withLock(new LeaseLock(NS, "f8-election", "candidate-1")).withLeaseDuration(Duration.ofSeconds(10))
                .withRenewDeadline(Duration.ofSeconds(8)).withRetryPeriod(Duration.ofSeconds(1))
                .withLeaderCallbacks(new LeaderCallbacks(() -> leading.complete(null), () -> { }, id -> { }))
                .build()).build();
        CompletableFuture<?> running = elector.start();
        try {
            leading.get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(client.leases().inNamespace(NS).withName("f8-election").get().getSpec().getHolderIdentity())
                    .isEqualTo("candidate-1");
        } finally {
            running.cancel(true);
        }
    }

    @Test
    void errorsArriveAsTheClientsExceptionsWithTheirStatus() {
        client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata().withName("once")
                .endMetadata().build()).create();
        assertThatThrownBy(() -> client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata()
                .withName("once").endMetadata().build()).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(409);
                    assertThat(e.getStatus().getReason()).isEqualTo("AlreadyExists");
                });
        assertThat(client.configMaps().inNamespace(NS).withName("absent").get()).isNull();
        assertThat(client.configMaps().inNamespace(NS).withLabels(Map.of("none", "x")).list().getItems()).isEmpty();
    }

    @Test
    void customResourcesThroughGenericResourcesAndAnInformer() throws Exception {
        String group = "fabric8.example.com";
        client.apiextensions().v1().customResourceDefinitions().load(new java.io.ByteArrayInputStream(
                CustomResourceApiTest.widgetCrd(group).getBytes(java.nio.charset.StandardCharsets.UTF_8))).create();
        client.apiextensions().v1().customResourceDefinitions().withName("widgets." + group).waitUntilCondition(
                c -> c != null && c.getStatus() != null && c.getStatus().getConditions().stream().anyMatch(
                        x -> x.getType().equals("Established") && x.getStatus().equals("True")),
                30, java.util.concurrent.TimeUnit.SECONDS);
        var context = new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
                .withGroup(group).withVersion("v1").withKind("Widget").withPlural("widgets").withNamespaced(true)
                .build();
        var widgets = client.genericKubernetesResources(context).inNamespace(NS);
        List<String> seen = new CopyOnWriteArrayList<>();
        SharedIndexInformer<io.fabric8.kubernetes.api.model.GenericKubernetesResource> informer = widgets.inform(
                new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(io.fabric8.kubernetes.api.model.GenericKubernetesResource w) {
                        seen.add("add " + w.getMetadata().getName());
                    }

                    @Override
                    public void onUpdate(io.fabric8.kubernetes.api.model.GenericKubernetesResource old,
                                         io.fabric8.kubernetes.api.model.GenericKubernetesResource w) {
                        if (!old.getMetadata().getResourceVersion().equals(w.getMetadata().getResourceVersion())) {
                            seen.add("update " + w.getMetadata().getName() + " "
                                    + w.<String>get("spec", "color"));
                        }
                    }

                    @Override
                    public void onDelete(io.fabric8.kubernetes.api.model.GenericKubernetesResource w, boolean gone) {
                        seen.add("delete " + w.getMetadata().getName());
                    }
                });
        try {
            var widget = new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
                    .withApiVersion(group + "/v1").withKind("Widget")
                    .withNewMetadata().withName("gw").withLabels(Map.of("made-by", "fabric8")).endMetadata()
                    .addToAdditionalProperties("spec", Map.of("color", "red")).build();
            var created = widgets.resource(widget).create();
            assertThat(created.<String>get("spec", "size")).isEqualTo("medium");
            widgets.withName("gw").edit(w -> {
                w.<Map<String, Object>>get("spec").put("color", "blue");
                return w;
            });
            var withStatus = widgets.withName("gw").get();
            withStatus.setAdditionalProperty("status", Map.of("replicas", 4));
            var statusWritten = widgets.resource(withStatus).updateStatus();
            assertThat(statusWritten.<Integer>get("status", "replicas")).isEqualTo(4);
            assertThat(widgets.withLabel("made-by", "fabric8").list().getItems()).hasSize(1);
            assertThatThrownBy(() -> widgets.resource(new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
                    .withApiVersion(group + "/v1").withKind("Widget").withNewMetadata().withName("pink").endMetadata()
                    .addToAdditionalProperties("spec", Map.of("color", "pink")).build()).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getStatus().getDetails().getCauses().get(0).getField()).isEqualTo("spec.color");
                    });
            widgets.withName("gw").delete();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(seen)
                    .containsSubsequence("add gw", "update gw blue", "delete gw"));
        } finally {
            informer.close();
        }
    }
}
