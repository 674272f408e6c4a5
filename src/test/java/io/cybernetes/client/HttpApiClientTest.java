package io.cybernetes.client;

import io.cybernetes.api.ApiException;
import io.cybernetes.apiserver.ApiTestSupport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The HTTP ApiClient against the running server, and an informer fed through it. */
class HttpApiClientTest extends ApiTestSupport {

    static final String NS = "client-http";
    ApiClient client;

    @BeforeEach
    void client() {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        client = ApiClients.http(URI.create(url("")), null, token());
    }

    static ConfigMap cm(String name, String value) {
        return new ConfigMapBuilder().withNewMetadata().withNamespace(NS).withName(name).addToLabels("app", "demo")
                .endMetadata().addToData("v", value).build();
    }

    @Test
    void typedVerbsAndTheServersStatusAsErrors() {
        ConfigMap created = client.create(cm("typed", "1"));
        assertThat(created.getMetadata().getUid()).isNotEmpty();
        assertThat(client.get(ConfigMap.class, NS, "typed").orElseThrow().getData()).containsEntry("v", "1");
        assertThat(client.get(ConfigMap.class, NS, "missing")).isEmpty();
        assertThatThrownBy(() -> client.create(cm("typed", "1"))).isInstanceOf(ApiException.class)
                .matches(e -> ((ApiException) e).code() == 409 && ((ApiException) e).reason().equals("AlreadyExists"));
        created.getData().put("v", "2");
        ConfigMap updated = client.update(created);
        assertThat(updated.getData()).containsEntry("v", "2");
        assertThatThrownBy(() -> client.update(created)).as("a stale resourceVersion")
                .matches(e -> ((ApiException) e).code() == 409);
        assertThat(client.patch(ConfigMap.class, NS, "typed", "{\"data\":{\"w\":\"3\"}}").getData())
                .containsEntry("w", "3");
        assertThat(client.list(ConfigMap.class, NS, "app=demo").items()).extracting(c -> c.getMetadata().getName())
                .contains("typed");
        client.delete(ConfigMap.class, NS, "typed", "Background");
        assertThat(client.get(ConfigMap.class, NS, "typed")).isEmpty();
    }

    @Test
    void aClientCertificateFromTheClusterCaAuthenticatesOverHttps() {
        java.nio.file.Path pki = endpoints.adminKubeconfig().getParent().resolve("pki");
        URI https = URI.create("https://127.0.0.1:" + endpoints.httpsPort());
        ApiClient byCertificate = ApiClients.https(https, pki.resolve("ca.crt"), pki.resolve("admin.crt"),
                pki.resolve("admin.key"));
        assertThat(byCertificate.get(io.fabric8.kubernetes.api.model.Namespace.class, null, NS)).isPresent();
        ApiClient anonymous = ApiClients.https(https, pki.resolve("ca.crt"), null, null);
        assertThatThrownBy(() -> anonymous.get(io.fabric8.kubernetes.api.model.Namespace.class, null, NS))
                .isInstanceOfSatisfying(io.cybernetes.api.ApiException.class, e -> assertThat(e.code()).isEqualTo(401));
    }

    @Test
    void statusIsWrittenThroughItsSubresource() {
        Pod p = client.create(new PodBuilder().withNewMetadata().withNamespace(NS).withName("with-status").endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("nginx").endContainer().endSpec().build());
        p.getStatus().setPhase("Running");
        p.getStatus().setMessage("written by the test");
        Pod withStatus = client.updateStatus(p);
        assertThat(withStatus.getStatus().getPhase()).isEqualTo("Running");
        assertThat(withStatus.getStatus().getMessage()).isEqualTo("written by the test");
        assertThat(withStatus.getSpec().getContainers()).hasSize(1);
    }

    @Test
    void anInformerOverTheClientFollowsTheServer() throws Exception {
        client.create(cm("watched-1", "1"));
        SharedInformer<ConfigMap> informer = new SharedInformer<>("configmaps", client.listerWatcher(ConfigMap.class,
                NS), Duration.ZERO);
        List<String> heard = new CopyOnWriteArrayList<>();
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap obj) {
                heard.add("add " + obj.getMetadata().getName());
            }

            @Override
            public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
                heard.add("update " + newObj.getMetadata().getName() + "=" + newObj.getData().get("v"));
            }

            @Override
            public void onDelete(ConfigMap lastKnown, boolean finalStateUnknown) {
                heard.add("delete " + lastKnown.getMetadata().getName());
            }
        });
        informer.start();
        try {
            assertThat(informer.waitForSync(Duration.ofSeconds(10))).isTrue();
            assertThat(heard).contains("add watched-1");
            client.create(cm("watched-2", "1"));
            client.patch(ConfigMap.class, NS, "watched-1", "{\"data\":{\"v\":\"2\"}}");
            client.delete(ConfigMap.class, NS, "watched-2", null);
            await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("delete watched-2"));
            assertThat(heard).containsSubsequence("add watched-2", "delete watched-2").contains("update watched-1=2");
            assertThat(informer.indexer().get(NS + "/watched-1").orElseThrow().getData()).containsEntry("v", "2");
        } finally {
            informer.stop();
        }
    }
}
