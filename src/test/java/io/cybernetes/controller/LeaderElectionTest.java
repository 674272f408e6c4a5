package io.cybernetes.controller;

import io.cybernetes.apiserver.ApiTestSupport;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Two candidates on one Lease of the running server: exactly one leads, and the other takes over when it stops. */
class LeaderElectionTest extends ApiTestSupport {

    static final LeaderElector.Timing FAST = new LeaderElector.Timing(Duration.ofSeconds(2), Duration.ofMillis(1500),
            Duration.ofMillis(200));

    @Test
    void exactlyOneLeadsAndTheOtherTakesOverAfterTheLeaseExpires() {
        ApiClient client = ApiClients.http(URI.create(url("")), null, token());
        List<String> log = new CopyOnWriteArrayList<>();
        LeaderElector a = elector(client, "replica-a", log);
        LeaderElector b = elector(client, "replica-b", log);
        a.start();
        b.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> a.isLeader() || b.isLeader());
            for (int i = 0; i < 10; i++) {
                assertThat(a.isLeader() && b.isLeader()).as("never two leaders").isFalse();
                sleep(100);
            }
            LeaderElector leader = a.isLeader() ? a : b;
            LeaderElector other = leader == a ? b : a;
            Lease lease = client.get(Lease.class, "kube-system", "test-controller-manager").orElseThrow();
            assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(leader.identity());
            assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(2);
            leader.stop();
            await().atMost(Duration.ofSeconds(10)).until(other::isLeader);
            assertThat(log).contains(leader.identity() + " started", leader.identity() + " stopped",
                    other.identity() + " started");
            Lease after = client.get(Lease.class, "kube-system", "test-controller-manager").orElseThrow();
            assertThat(after.getSpec().getHolderIdentity()).isEqualTo(other.identity());
            assertThat(after.getSpec().getLeaseTransitions()).isEqualTo(1);
        } finally {
            a.stop();
            b.stop();
        }
    }

    private static LeaderElector elector(ApiClient client, String id, List<String> log) {
        return new LeaderElector(client, "kube-system", "test-controller-manager", id, FAST,
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
