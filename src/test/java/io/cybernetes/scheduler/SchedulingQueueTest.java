package io.cybernetes.scheduler;

import io.cybernetes.controller.TestClock;
import io.cybernetes.scheduler.framework.ClusterEvent;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** activeQ order, backoff, the unschedulable pods and their way back. */
class SchedulingQueueTest {

    final TestClock clock = new TestClock();
    final SchedulingQueue queue = new SchedulingQueue(clock);

    static Pod withPriority(String name, int priority) {
        return pod(name, null, null).editSpec().withPriority(priority).endSpec().build();
    }

    private String next() throws InterruptedException {
        SchedulingQueue.QueuedPod q = queue.pop(0);
        return q == null ? null : q.pod().getMetadata().getName();
    }

    @Test
    void higherPriorityFirstThenWhoCameFirst() throws Exception {
        queue.add(withPriority("low-early", 0));
        clock.advance(Duration.ofMillis(1));
        queue.add(withPriority("high", 1000));
        clock.advance(Duration.ofMillis(1));
        queue.add(withPriority("low-late", 0));
        assertThat(next()).isEqualTo("high");
        assertThat(next()).isEqualTo("low-early");
        assertThat(next()).isEqualTo("low-late");
        assertThat(next()).isNull();
    }

    @ParameterizedTest(name = "after {0} failed attempts: {1} s")
    @CsvSource({"1, 1", "2, 2", "3, 4", "4, 8", "5, 10", "9, 10"})
    void backoffDoublesUpToTenSeconds(int attempts, long seconds) {
        assertThat(SchedulingQueue.backoffAfter(attempts)).isEqualTo(Duration.ofSeconds(seconds));
    }

    @Test
    void anUnschedulablePodWaitsForAChangeAndItsBackoff() throws Exception {
        queue.add(pod("p"));
        SchedulingQueue.QueuedPod tried = queue.pop(0);
        queue.unschedulable(tried, java.util.Set.of());
        assertThat(next()).as("nothing changed").isNull();
        assertThat(queue.depths()).isEqualTo(new SchedulingQueue.Depths(0, 0, 1));
        queue.clusterChanged();
        assertThat(queue.depths()).as("still backing off").isEqualTo(new SchedulingQueue.Depths(0, 1, 0));
        assertThat(next()).isNull();
        clock.advance(Duration.ofSeconds(1));
        assertThat(next()).isEqualTo("p");
    }

    @Test
    void aChangeWhileThePodIsTriedIsNotLostOnIt() throws Exception {
        // as a preemptor's victim is gone before the preemptor comes back from its cycle
        queue.add(pod("preemptor"));
        SchedulingQueue.QueuedPod tried = queue.pop(0);
        queue.clusterChanged();
        queue.unschedulable(tried, java.util.Set.of());
        assertThat(queue.depths()).as("backing off, not waiting for another change")
                .isEqualTo(new SchedulingQueue.Depths(0, 1, 0));
        clock.advance(Duration.ofSeconds(1));
        SchedulingQueue.QueuedPod second = queue.pop(0);
        assertThat(second.pod().getMetadata().getName()).isEqualTo("preemptor");
        queue.unschedulable(second, java.util.Set.of());
        assertThat(queue.depths()).as("a change before this cycle began counts for nothing: it waits")
                .isEqualTo(new SchedulingQueue.Depths(0, 0, 1));
    }

    @Test
    void unschedulablePodsGoBackAfterFiveMinutesAnyway() throws Exception {
        queue.add(pod("p"));
        queue.unschedulable(queue.pop(0), java.util.Set.of());
        clock.advance(Duration.ofMinutes(4));
        queue.flushUnschedulable();
        assertThat(next()).isNull();
        clock.advance(Duration.ofMinutes(2));
        queue.flushUnschedulable();
        assertThat(next()).isEqualTo("p");
    }

    @Test
    void aPodDeletedOrChangedWhileTriedIsDroppedOrTriedAgain() throws Exception {
        queue.add(pod("gone"));
        queue.add(pod("changed"));
        SchedulingQueue.QueuedPod gone = queue.pop(0);
        SchedulingQueue.QueuedPod changed = queue.pop(0);
        queue.delete(gone.pod());
        queue.update(pod("changed", "1", null).build());
        queue.unschedulable(gone, java.util.Set.of());
        queue.unschedulable(changed, java.util.Set.of());
        SchedulingQueue.QueuedPod again = queue.pop(0);
        assertThat(again.pod().getMetadata().getName()).isEqualTo("changed");
        assertThat(again.pod().getSpec().getContainers().get(0).getResources().getRequests()).containsKey("cpu");
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(queue.pop(0)).isNull();
    }

    @Test
    void anUpdatedUnschedulablePodIsTriedAgain() throws Exception {
        queue.add(pod("p"));
        queue.unschedulable(queue.pop(0), java.util.Set.of());
        clock.advance(Duration.ofSeconds(2));
        queue.update(pod("p", "1", null).build());
        assertThat(next()).isEqualTo("p");
    }

    @Test
    void aStatusChangeAloneLeavesAnUnschedulablePodWaitingButKeepsTheNewStatus() throws Exception {
        queue.add(pod("p"));
        queue.unschedulable(queue.pop(0), java.util.Set.of());
        clock.advance(Duration.ofSeconds(2));
        queue.update(new io.fabric8.kubernetes.api.model.PodBuilder(pod("p")).withNewStatus()
                .withNominatedNodeName("n1").endStatus().build());
        assertThat(queue.depths()).as("the scheduler's own status write").isEqualTo(new SchedulingQueue.Depths(0, 0, 1));
        queue.clusterChanged();
        SchedulingQueue.QueuedPod q = queue.pop(0);
        assertThat(q.pod().getStatus().getNominatedNodeName()).isEqualTo("n1");
    }

    @Test
    void popWaitsForAPodAndCloseEndsTheWait() throws Exception {
        Thread adder = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            queue.add(pod("late"));
        });
        adder.start();
        SchedulingQueue.QueuedPod q = queue.pop(5_000);
        assertThat(q.pod().getMetadata().getName()).isEqualTo("late");
        queue.close();
        assertThat(queue.pop(5_000)).isNull();
    }

    /** Hints that say only a node deleted may help a pod NodeResourcesFit rejected. */
    static final SchedulingQueue.Hints ONLY_NODE_DELETE = (pod, rejectedBy, event, before, after) ->
            !rejectedBy.contains("NodeResourcesFit") || event == ClusterEvent.NODE_DELETE;

    @Test
    void anUnschedulablePodComesBackOnlyOnAChangeItsRejectingPluginSaysMayHelp() throws Exception {
        SchedulingQueue hinted = new SchedulingQueue(clock, new io.cybernetes.scheduler.queuesort.PrioritySort(),
                ONLY_NODE_DELETE);
        hinted.add(pod("p"));
        hinted.unschedulable(hinted.pop(0), java.util.Set.of("NodeResourcesFit"));
        clock.advance(Duration.ofSeconds(2));
        hinted.clusterChanged(ClusterEvent.NODE_ADD, null, Fixtures.node("n1"));
        assertThat(hinted.depths()).as("a change that cannot help").isEqualTo(new SchedulingQueue.Depths(0, 0, 1));
        hinted.clusterChanged(ClusterEvent.NODE_DELETE, Fixtures.node("n1"), null);
        assertThat(hinted.depths()).isEqualTo(new SchedulingQueue.Depths(1, 0, 0));
        hinted.add(pod("q"));
        hinted.pop(0);
        hinted.unschedulable(hinted.pop(0), java.util.Set.of());
        hinted.clusterChanged(ClusterEvent.NODE_ADD, null, Fixtures.node("n2"));
        assertThat(hinted.depths()).as("rejected by no plugin (an error): any change")
                .isEqualTo(new SchedulingQueue.Depths(0, 1, 0));
    }

    @Test
    void aChangeWhileThePodIsTriedCountsOnlyWhenItsRejectingPluginSaysItMayHelp() throws Exception {
        SchedulingQueue hinted = new SchedulingQueue(clock, new io.cybernetes.scheduler.queuesort.PrioritySort(),
                ONLY_NODE_DELETE);
        hinted.add(pod("p"));
        SchedulingQueue.QueuedPod tried = hinted.pop(0);
        hinted.clusterChanged(ClusterEvent.NODE_ADD, null, Fixtures.node("n1"));
        hinted.unschedulable(tried, java.util.Set.of("NodeResourcesFit"));
        assertThat(hinted.depths()).as("the node added meanwhile cannot help: it waits")
                .isEqualTo(new SchedulingQueue.Depths(0, 0, 1));
        hinted.clusterChanged(ClusterEvent.NODE_DELETE, Fixtures.node("n1"), null);
        clock.advance(Duration.ofSeconds(2));
        SchedulingQueue.QueuedPod again = hinted.pop(0);
        hinted.clusterChanged(ClusterEvent.NODE_DELETE, Fixtures.node("n1"), null);
        hinted.unschedulable(again, java.util.Set.of("NodeResourcesFit"));
        assertThat(hinted.depths()).as("the node deleted meanwhile may help: back off and try again")
                .isEqualTo(new SchedulingQueue.Depths(0, 1, 0));
    }

    @Test
    void anEventNoPluginRegisteredNeitherMovesNorIsRememberedForThePodsBeingTried() throws Exception {
        SchedulingQueue.Hints onlyNodes = new SchedulingQueue.Hints() {
            @Override
            public boolean mayHelp(Pod pod, java.util.Set<String> rejectedBy, ClusterEvent event, Object before,
                                   Object after) {
                return true;
            }

            @Override
            public boolean anyInterestIn(ClusterEvent event) {
                return event != ClusterEvent.ASSIGNED_POD_ADD;
            }
        };
        SchedulingQueue hinted = new SchedulingQueue(clock, new io.cybernetes.scheduler.queuesort.PrioritySort(), onlyNodes);
        hinted.add(pod("waiting"));
        hinted.unschedulable(hinted.pop(0), java.util.Set.of());
        hinted.add(pod("tried"));
        SchedulingQueue.QueuedPod tried = hinted.pop(0);
        clock.advance(Duration.ofSeconds(2));
        hinted.clusterChanged(ClusterEvent.ASSIGNED_POD_ADD, null, pod("placed"));
        assertThat(hinted.depths()).isEqualTo(new SchedulingQueue.Depths(0, 0, 1));
        hinted.unschedulable(tried, java.util.Set.of("NodeResourcesFit"));
        assertThat(hinted.depths()).as("parked, the event not replayed").isEqualTo(new SchedulingQueue.Depths(0, 0, 2));
        hinted.clusterChanged(ClusterEvent.NODE_ADD, null, Fixtures.node("n1"));
        assertThat(hinted.depths().unschedulable()).isZero();
    }
}
