package io.cybernetes.store.internal;

import io.cybernetes.CybernetesApplication;
import io.cybernetes.api.InProcessCredentials;
import io.cybernetes.api.LocalApi;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.controller.ControllerManager;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.Watch;
import io.cybernetes.store.WatchEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two application contexts on one PostgreSQL database: they see each other's writes
 * through their watches, in order, and exactly one of them runs the controllers, which
 * move to the other when it goes.
 */
@EnabledIfEnvironmentVariable(named = PostgresStoreTest.URL, matches = ".+")
class PostgresReplicasTest {

    /** The replicas of one run compete for a Lease of their own, not for one a replica of an earlier run still holds. */
    private static final String LEASE = "replicas-test-" + System.nanoTime();

    private static ConfigurableApplicationContext replica(String name, String... extra) {
        List<String> args = new ArrayList<>(List.of("--spring.datasource.url=" + PostgresTestDatabase.url(),
                        "--spring.datasource.username=" + PostgresTestDatabase.user(),
                        "--spring.datasource.password=",
                        "--cybernetes.store.poll-interval=50ms",
                        "--cybernetes.auth.data-dir=./target/test-data/replica-" + name,
                        "--cybernetes.controllers.leader-election.name=" + LEASE,
                        "--cybernetes.scheduler.enabled=false",
                        "--cybernetes.nodes.count=0",
                        "--cybernetes.controllers.leader-election.lease-duration=3s",
                        "--cybernetes.controllers.leader-election.renew-deadline=2s",
                        "--cybernetes.controllers.leader-election.retry-period=300ms",
                        "--spring.main.banner-mode=off"));
        args.addAll(List.of(extra));
        return new SpringApplicationBuilder(CybernetesApplication.class)
                .web(WebApplicationType.NONE)
                // command-line arguments: they take precedence over config/application.yml
                .run(args.toArray(String[]::new));
    }

    /**
     * Services created through both replicas at once, from a node port range small enough
     * that they often want the same port: every Service gets ports and an address no other has.
     */
    @Test
    void twoReplicasAllocatingAtOnceNeverHandOutTheSamePortOrAddress() throws Exception {
        String range = "--cybernetes.apiserver.services.node-port-range=31900-31999";
        try (ConfigurableApplicationContext a = replica("alloc-a", range);
             ConfigurableApplicationContext b = replica("alloc-b", range)) {
            String ns = "alloc-" + System.nanoTime();
            admin(a).create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<Service>> made = new ArrayList<>();
            for (int i = 0; i < 80; i++) {
                ApiClient via = admin(i % 2 == 0 ? a : b);
                String name = "np-" + i;
                made.add(pool.submit(() -> via.create(new ServiceBuilder()
                        .withNewMetadata().withName(name).withNamespace(ns).endMetadata().withNewSpec()
                        .withType("NodePort").addNewPort().withPort(80).endPort().endSpec().build())));
            }
            Set<Integer> ports = new HashSet<>();
            Set<String> ips = new HashSet<>();
            for (var f : made) {
                Service svc = f.get();
                assertThat(ports.add(svc.getSpec().getPorts().get(0).getNodePort())).as("node port handed out twice")
                        .isTrue();
                assertThat(ips.add(svc.getSpec().getClusterIP())).as("address handed out twice").isTrue();
            }
            pool.shutdown();
            assertThat(ports).hasSize(80).allSatisfy(p -> assertThat(p).isBetween(31900, 31999));
        }
    }

    /** A cluster admin's client of one replica, in process. */
    private static ApiClient admin(ConfigurableApplicationContext replica) {
        return ApiClients.local(replica.getBean(LocalApi.class), replica.getBean(InProcessCredentials.class)
                .tokenFor("replica-test-admin", List.of("system:masters")));
    }

    private static int replicaSets(ApiClient client, String ns) {
        return client.list(ReplicaSet.class, ns, null).items().size();
    }

    @Test
    void theControllersRunOnOneReplicaAndMoveToTheOtherWhenItGoes() {
        ConfigurableApplicationContext a = replica("leader-a");
        ConfigurableApplicationContext b = replica("leader-b");
        try {
            ControllerManager ma = a.getBean(ControllerManager.class);
            ControllerManager mb = b.getBean(ControllerManager.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> ma.isLeader() || mb.isLeader());
            for (int i = 0; i < 10; i++) {
                assertThat(ma.isLeader() && mb.isLeader()).as("never both").isFalse();
                sleep(100);
            }
            ConfigurableApplicationContext leader = ma.isLeader() ? a : b;
            ConfigurableApplicationContext other = leader == a ? b : a;
            String ns = "replicas-" + System.nanoTime();
            ApiClient viaOther = admin(other);
            viaOther.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
            viaOther.create(deployment(ns, "first"));
            // written through the replica that does not lead, reconciled by the one that does
            await().atMost(Duration.ofSeconds(20)).until(() -> replicaSets(viaOther, ns) == 1);

            leader.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> other.getBean(ControllerManager.class).isLeader());
            viaOther.create(deployment(ns, "second"));
            await().atMost(Duration.ofSeconds(20)).until(() -> replicaSets(viaOther, ns) == 2);
        } finally {
            a.close();
            b.close();
        }
    }

    private static Deployment deployment(String ns, String name) {
        return new DeploymentBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata().withNewSpec()
                .withReplicas(1).withNewSelector().addToMatchLabels("app", name).endSelector().withNewTemplate()
                .withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec().addNewContainer().withName("c")
                .withImage("nginx").endContainer().endSpec().endTemplate().endSpec().build();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void writesThroughEitherReplicaReachWatchersOnBothInRevisionOrder() throws Exception {
        try (ConfigurableApplicationContext a = replica("a"); ConfigurableApplicationContext b = replica("b")) {
            assertThat(a.getEnvironment().getProperty("spring.datasource.url")).startsWith("jdbc:postgresql:");
            Store sa = a.getBean(Store.class);
            Store sb = b.getBean(Store.class);
            String prefix = "replicas/" + System.nanoTime() + "/";
            long start = Math.max(sa.currentRevision(), sb.currentRevision());
            try (Watch wa = sa.watch(prefix, start); Watch wb = sb.watch(prefix, start)) {
                List<Long> written = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    Store via = i % 2 == 0 ? sa : sb;
                    StoredObject o = via.create(prefix + i, StoreContractTest.obj("o" + i, "v"));
                    written.add(o.modRevision());
                }
                assertThat(StoreContractTest.take(wa, 20)).extracting(WatchEvent::revision)
                        .containsExactlyElementsOf(written);
                assertThat(StoreContractTest.take(wb, 20)).extracting(WatchEvent::revision)
                        .containsExactlyElementsOf(written);
            }
        }
    }
}
