package io.cybernetes.controller;

import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.cybernetes.client.LeaderElector;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two candidates on one Lease of the running server: exactly one leads, and the other
 * takes over when it stops (released at once) or dies (once the lease expires) — as bare
 * electors, and as controller managers.
 */
class LeaderElectionTest extends ApiTestSupport {

    static final LeaderElector.Timing FAST = new LeaderElector.Timing(Duration.ofSeconds(2), Duration.ofMillis(1500),
            Duration.ofMillis(200));

    @Test
    void exactlyOneLeadsAndAStoppedLeaderReleasesTheLeaseToTheOther() {
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        List<String> log = new CopyOnWriteArrayList<>();
        LeaderElector a = elector(client, "replica-a", "test-controller-manager", log);
        LeaderElector b = elector(client, "replica-b", "test-controller-manager", log);
        a.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(a::isLeader);
            b.start();
            for (int i = 0; i < 10; i++) {
                assertThat(a.isLeader() && b.isLeader()).as("never two leaders").isFalse();
                sleep(100);
            }
            assertThat(b.isLeader()).isFalse();
            Lease lease = client.get(Lease.class, "kube-system", "test-controller-manager").orElseThrow();
            assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("replica-a");
            assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(2);
            b.stop(); // so that what a leaves behind can be read before anyone takes it
            a.stop();
            assertThat(a.isLeader()).isFalse();
            assertThat(log).containsExactly("replica-a started", "replica-a stopped");
            Lease released = client.get(Lease.class, "kube-system", "test-controller-manager").orElseThrow();
            assertThat(released.getSpec().getHolderIdentity()).as("released once its work stopped").isEmpty();
            assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
            assertThat(released.getSpec().getLeaseTransitions()).isZero();
            b.start();
            await().atMost(Duration.ofSeconds(10)).until(b::isLeader);
            Lease after = client.get(Lease.class, "kube-system", "test-controller-manager").orElseThrow();
            assertThat(after.getSpec().getHolderIdentity()).isEqualTo("replica-b");
            assertThat(after.getSpec().getLeaseDurationSeconds()).isEqualTo(2);
            assertThat(after.getSpec().getLeaseTransitions()).isEqualTo(1);
        } finally {
            a.stop();
            b.stop();
        }
    }

    /** A leader that died without stopping keeps the lease until it expires by the candidate's own clock. */
    @Test
    void aCrashedLeadersLeaseIsTakenOnlyAfterItExpires() {
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        String now = java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).truncatedTo(java.time.temporal.ChronoUnit.MICROS)
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"));
        assertThat(post("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", "{\"apiVersion\":"
                + "\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"test-crashed\"},"
                + "\"spec\":{\"holderIdentity\":\"crashed\",\"leaseDurationSeconds\":2,\"renewTime\":\"" + now
                + "\",\"acquireTime\":\"" + now + "\",\"leaseTransitions\":3}}").code()).isEqualTo(201);
        List<String> log = new CopyOnWriteArrayList<>();
        LeaderElector b = elector(client, "replica-b", "test-crashed", log);
        long t0 = System.nanoTime();
        b.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(b::isLeader);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("not before the lease expired")
                    .isGreaterThanOrEqualTo(FAST.leaseDuration());
            Lease after = client.get(Lease.class, "kube-system", "test-crashed").orElseThrow();
            assertThat(after.getSpec().getHolderIdentity()).isEqualTo("replica-b");
            assertThat(after.getSpec().getLeaseTransitions()).isEqualTo(4);
        } finally {
            b.stop();
        }
    }

    /** Two controller managers: only the leader's controllers run, and the other's start when the leader goes. */
    @Test
    void twoControllerManagersRunTheirControllersOnlyWhileLeading() {
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        assertThat(createNamespace("two-managers").code()).isIn(201, 409);
        List<String> reconciledBy = new CopyOnWriteArrayList<>();
        ControllerManager a = manager(client, "manager-a", "test-two-managers", reconciledBy);
        ControllerManager b = manager(client, "manager-b", "test-two-managers", reconciledBy);
        a.start();
        b.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> a.isLeader() || b.isLeader());
            ControllerManager leader = a.isLeader() ? a : b;
            ControllerManager other = leader == a ? b : a;
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.status("echo").running());
            assertThat(other.isLeader()).isFalse();
            assertThat(other.status("echo").running()).isFalse();
            assertThat(post("/api/v1/namespaces/two-managers/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                    + "\"ConfigMap\",\"metadata\":{\"name\":\"first\"}}").code()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(10)).until(() -> reconciledBy.contains(leader.identity() + " first"));
            assertThat(reconciledBy).noneMatch(r -> r.startsWith(other.identity()));

            leader.stop();
            assertThat(leader.isLeader()).isFalse();
            await().atMost(Duration.ofSeconds(15)).until(() -> other.isLeader() && other.status("echo").running());
            assertThat(post("/api/v1/namespaces/two-managers/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                    + "\"ConfigMap\",\"metadata\":{\"name\":\"second\"}}").code()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(10)).until(() -> reconciledBy.contains(other.identity() + " second"));
            assertThat(reconciledBy).noneMatch(r -> r.equals(leader.identity() + " second"));
            assertThat(other.leaseHolder()).contains(other.identity());
        } finally {
            a.stop();
            b.stop();
        }
    }

    /** As Spring pauses and resumes a context: stopped and at once started again, the manager leads and runs again. */
    @Test
    void aControllerManagerStoppedAndStartedAgainRunsItsControllersAgain() {
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        assertThat(createNamespace("two-managers").code()).isIn(201, 409);
        List<String> reconciledBy = new CopyOnWriteArrayList<>();
        ControllerManager m = manager(client, "manager-r", "test-restarted", reconciledBy);
        try {
            for (int round = 0; round < 3; round++) {
                m.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> m.isLeader() && m.status("echo").running());
                m.stop();
                assertThat(m.isLeader()).isFalse();
                assertThat(m.status("echo").running()).isFalse();
            }
            m.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> m.isLeader() && m.status("echo").running());
            assertThat(post("/api/v1/namespaces/two-managers/configmaps", "{\"apiVersion\":\"v1\",\"kind\":"
                    + "\"ConfigMap\",\"metadata\":{\"name\":\"restarted\"}}").code()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(10)).until(() -> reconciledBy.contains("manager-r restarted"));
            assertThat(m.leaseHolder()).contains("manager-r");
        } finally {
            m.stop();
        }
    }

    private static ControllerManager manager(ApiClient client, String id, String lease, List<String> reconciledBy) {
        ControllerManager.Registration echo = (c, informers) -> {
            var configMaps = informers.informerFor(io.fabric8.kubernetes.api.model.ConfigMap.class);
            Controller controller = new Controller("echo", request -> {
                if (request.namespace().equals("two-managers")) {
                    reconciledBy.add(id + " " + request.name());
                }
                return Result.DONE;
            }, 1);
            configMaps.addEventHandler(controller.enqueueOnAddAndUpdate());
            return controller;
        };
        return new ControllerManager(client, java.util.Map.of("echo", echo), Duration.ofMinutes(5), id, "kube-system",
                lease, FAST);
    }

    private static LeaderElector elector(ApiClient client, String id, String lease, List<String> log) {
        return new LeaderElector(client, "kube-system", lease, id, FAST,
                new LeaderElector.Callbacks() {
                    @Override
                    public void startedLeading() {
                        log.add(id + " started");
                    }

                    @Override
                    public void stoppedLeading() {
                        log.add(id + " stopped");
                    }
                });
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
