package io.cybernetes.scheduler.queuesort;

import io.cybernetes.scheduler.framework.Plugin;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;

import static io.cybernetes.scheduler.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

/** PrioritySort: priority first, then the one that has waited longer. */
class PrioritySortTest {

    record Queued(Pod pod, Instant queuedAt) implements Plugin.QueuedPodInfo {
    }

    static Queued queued(Integer priority, int second) {
        return new Queued(pod("p", null, null).editSpec().withPriority(priority).endSpec().build(),
                Instant.ofEpochSecond(second));
    }

    @ParameterizedTest(name = "priority {0} queued at {1} vs priority {2} queued at {3} → {4}")
    @CsvSource(nullValues = "null", value = {
            "10, 5, 1, 1, first", "1, 1, 10, 5, second", "5, 1, 5, 2, first", "5, 2, 5, 1, second",
            "null, 1, 0, 2, first", "-1, 1, null, 2, second"})
    void order(Integer priorityA, int queuedA, Integer priorityB, int queuedB, String first) {
        int c = new PrioritySort().compare(queued(priorityA, queuedA), queued(priorityB, queuedB));
        assertThat(c < 0 ? "first" : "second").isEqualTo(first);
    }
}
