package io.cybernetes.client;

import io.cybernetes.controller.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Samples keep the window's worth, oldest first, and refuse a source that gives the wrong count. */
class SamplesTest {

    @Test
    void theWindowKeepsItsLastSamplesOldestFirst() {
        TestClock clock = new TestClock();
        AtomicInteger n = new AtomicInteger();
        Samples s = new Samples("t", List.of("count", "depth"), Duration.ofSeconds(5), Duration.ofSeconds(20),
                () -> new double[] {n.incrementAndGet(), 7}, clock);
        for (int i = 0; i < 6; i++) {
            s.take();
            clock.advance(Duration.ofSeconds(5));
        }
        assertThat(s.all()).hasSize(4);
        assertThat(s.all()).extracting(x -> x.values()[0]).containsExactly(3.0, 4.0, 5.0, 6.0);
        assertThat(s.all().get(1).time()).isEqualTo(s.all().get(0).time().plusSeconds(5));
        Samples wrong = new Samples("w", List.of("a"), Duration.ofSeconds(1), Duration.ofSeconds(10),
                () -> new double[] {1, 2}, clock);
        assertThatThrownBy(wrong::take).hasMessageContaining("2 values for 1 names");
    }
}
