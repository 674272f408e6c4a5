package io.cybernetes.apiserver;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.kubernetes.client.extended.leaderelection.LeaderElector;
import io.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1SecretList;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The official Kubernetes Java client ({@code io.kubernetes:client-java}) against the running
 * application, over HTTPS with the admin kubeconfig, as its users write controllers with it:
 * a {@link SharedInformerFactory} informer with resync, {@link GenericKubernetesApi} for
 * create, merge patch, list and delete, the typed API's errors, and the extended module's
 * {@link LeaderElector} on a Lease.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaClientCompatibilityTest extends SimulatedClusterSupport {

    static final String NS = "java-client";
    ApiClient client;

    @BeforeAll
    void connect() throws Exception {
        assertThat(createNamespace(NS).code()).isIn(201, 409);
        try (Reader r = Files.newBufferedReader(endpoints.adminKubeconfig(), StandardCharsets.UTF_8)) {
            client = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(r)).build();
        }
        // a watch is held open longer than the default read timeout
        client.setReadTimeout(0);
    }

    @Test
    void aSharedInformerSeesChangesAndResyncs() {
        GenericKubernetesApi<V1ConfigMap, V1ConfigMapList> configMaps =
                new GenericKubernetesApi<>(V1ConfigMap.class, V1ConfigMapList.class, "", "v1", "configmaps", client);
        SharedInformerFactory factory = new SharedInformerFactory(client);
        SharedIndexInformer<V1ConfigMap> informer =
                factory.sharedIndexInformerFor(configMaps, V1ConfigMap.class, 1000, NS);
        List<String> seen = new CopyOnWriteArrayList<>();
        AtomicInteger resyncs = new AtomicInteger();
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(V1ConfigMap cm) {
                seen.add("add " + cm.getMetadata().getName());
            }

            @Override
            public void onUpdate(V1ConfigMap old, V1ConfigMap cm) {
                if (old.getMetadata().getResourceVersion().equals(cm.getMetadata().getResourceVersion())) {
                    resyncs.incrementAndGet();
                } else {
                    seen.add("update " + cm.getMetadata().getName() + " " + cm.getData().get("k"));
                }
            }

            @Override
            public void onDelete(V1ConfigMap cm, boolean unknownFinalState) {
                seen.add("delete " + cm.getMetadata().getName());
            }
        });
        factory.startAllRegisteredInformers();
        try {
            await().atMost(Duration.ofSeconds(20)).until(informer::hasSynced);
            V1ConfigMap created = configMaps.create(new V1ConfigMap().metadata(new V1ObjectMeta().name("informed")
                    .namespace(NS)).data(Map.of("k", "1"))).throwsApiException().getObject();
            assertThat(created.getMetadata().getUid()).isNotBlank();
            configMaps.patch(NS, "informed", V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
                    new V1Patch("{\"data\":{\"k\":\"2\"}}")).throwsApiException();
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.contains("update informed 2"));
            await().atMost(Duration.ofSeconds(10)).until(() -> resyncs.get() > 0);
            assertThat(informer.getIndexer().getByKey(NS + "/informed").getData()).containsEntry("k", "2");
            configMaps.delete(NS, "informed").throwsApiException();
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.contains("delete informed"));
            assertThat(seen).containsExactly("add informed", "update informed 2", "delete informed");
            assertThat(informer.getIndexer().list()).isEmpty();
        } catch (ApiException e) {
            throw new AssertionError(e.getCode() + " " + e.getResponseBody(), e);
        } finally {
            stopQuietly(factory);
        }
    }

    /**
     * Stops the informers. The client stops an informer by interrupting its threads and
     * logs that at ERROR whatever the server did: its informer package is silenced for it.
     */
    private static void stopQuietly(SharedInformerFactory factory) {
        ch.qos.logback.classic.Logger informers = (ch.qos.logback.classic.Logger)
                org.slf4j.LoggerFactory.getLogger("io.kubernetes.client.informer");
        ch.qos.logback.classic.Level level = informers.getLevel();
        informers.setLevel(ch.qos.logback.classic.Level.OFF);
        try {
            factory.stopAllRegisteredInformers(true);
            await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ofMillis(200)).until(() -> true);
        } finally {
            informers.setLevel(level);
        }
    }

    @Test
    void theGenericApiListsPatchesAndReportsStatus() throws Exception {
        GenericKubernetesApi<V1Secret, V1SecretList> secrets =
                new GenericKubernetesApi<>(V1Secret.class, V1SecretList.class, "", "v1", "secrets", client);
        secrets.create(new V1Secret().metadata(new V1ObjectMeta().name("generic").namespace(NS)
                .labels(Map.of("suite", "java")))
                .stringData(Map.of("password", "s3cret"))).throwsApiException();
        V1Secret got = secrets.get(NS, "generic").throwsApiException().getObject();
        // stringData is folded into data, base64 on the wire and bytes in the client
        assertThat(new String(got.getData().get("password"), StandardCharsets.UTF_8)).isEqualTo("s3cret");
        assertThat(got.getType()).isEqualTo("Opaque");

        KubernetesApiResponse<V1Secret> again = secrets.create(new V1Secret().metadata(
                new V1ObjectMeta().name("generic").namespace(NS)));
        assertThat(again.isSuccess()).isFalse();
        assertThat(again.getHttpStatusCode()).isEqualTo(409);
        assertThat(again.getStatus().getReason()).isEqualTo("AlreadyExists");
        assertThat(again.getStatus().getMessage()).isEqualTo("secrets \"generic\" already exists");
        assertThat(again.getStatus().getDetails().getKind()).isEqualTo("secrets");

        assertThat(secrets.list(NS, new io.kubernetes.client.util.generic.options.ListOptions() {{
            setLabelSelector("suite=java");
        }}).throwsApiException().getObject().getItems()).extracting(s -> s.getMetadata().getName())
                .containsExactly("generic");

        KubernetesApiResponse<V1Secret> missing = secrets.get(NS, "absent");
        assertThat(missing.getHttpStatusCode()).isEqualTo(404);
        assertThat(missing.getStatus().getReason()).isEqualTo("NotFound");
        secrets.delete(NS, "generic").throwsApiException();
        await().atMost(Duration.ofSeconds(10)).until(() -> secrets.get(NS, "generic").getHttpStatusCode() == 404);
    }

    @Test
    void theTypedApiThrowsItsApiExceptionWithTheStatusBody() {
        CoreV1Api core = new CoreV1Api(client);
        assertThatThrownBy(() -> core.readNamespacedConfigMap("absent", NS).execute())
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(404);
                    assertThat(e.getResponseBody()).contains("\"reason\":\"NotFound\"",
                            "configmaps \\\"absent\\\" not found");
                });
        assertThatThrownBy(() -> core.createNamespacedConfigMap(NS, new V1ConfigMap().metadata(
                new V1ObjectMeta().name("Not_A_Name"))).execute())
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getResponseBody()).contains("\"reason\":\"Invalid\"", "metadata.name");
                });
    }

    @Test
    void theLeaderElectorLeadsThroughALease() throws Exception {
        LeaderElectionConfig config = new LeaderElectionConfig(new LeaseLock(NS, "java-election", "candidate-a", client),
                Duration.ofSeconds(10), Duration.ofSeconds(8), Duration.ofSeconds(1));
        CountDownLatch leading = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread candidate;
        try (LeaderElector elector = new LeaderElector(config)) {
            candidate = new Thread(() -> elector.run(leading::countDown, stopped::countDown), "java-elector");
            candidate.setDaemon(true);
            candidate.start();
            assertThat(leading.await(20, TimeUnit.SECONDS)).isTrue();
            V1Lease lease = new CoordinationV1Api(client).readNamespacedLease("java-election", NS).execute();
            assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("candidate-a");
            assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(10);
            assertThat(lease.getSpec().getRenewTime()).isNotNull();
            // the lease is renewed while the candidate leads
            var firstRenewal = lease.getSpec().getRenewTime();
            await().atMost(Duration.ofSeconds(10)).until(() -> !new CoordinationV1Api(client)
                    .readNamespacedLease("java-election", NS).execute().getSpec().getRenewTime().equals(firstRenewal));
        }
        // closed, the candidate stops leading and its thread ends
        assertThat(stopped.await(10, TimeUnit.SECONDS)).isTrue();
        candidate.join(10_000);
        assertThat(candidate.isAlive()).isFalse();
    }
}
