package io.cybernetes.controller.job;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** Completion index sets as a Job's status writes them, and the back-off between replacements. */
class IndexesTest {

    @Test
    void runsOfThreeOrMoreAreIntervalsAndPairsTwoNumbers() {
        TreeSet<Integer> set = new TreeSet<>(java.util.List.of(0, 1, 2, 4, 6, 7, 9, 10, 11, 12));
        assertThat(Indexes.format(set)).isEqualTo("0-2,4,6,7,9-12");
        assertThat(Indexes.parse("0-2,4,6,7,9-12")).isEqualTo(set);
        assertThat(Indexes.format(new TreeSet<>())).isNull();
        assertThat(Indexes.parse("")).isEmpty();
        assertThat(Indexes.parse("3,x,5")).containsExactly(3, 5);
    }

    @Test
    void theBackoffDoublesFromItsBaseUpToTenMinutes() {
        Duration base = Duration.ofSeconds(10);
        assertThat(FailurePolicy.backoff(base, 0)).isZero();
        assertThat(FailurePolicy.backoff(base, 1)).isEqualTo(Duration.ofSeconds(10));
        assertThat(FailurePolicy.backoff(base, 3)).isEqualTo(Duration.ofSeconds(40));
        assertThat(FailurePolicy.backoff(base, 30)).isEqualTo(Duration.ofMinutes(10));
    }
}
