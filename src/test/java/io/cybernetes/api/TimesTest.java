package io.cybernetes.api;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Go durations as time.ParseDuration reads them (the metrics API's windows among them). */
class TimesTest {

    @Test
    void goDurationsReadAsGoReadsThem() {
        assertThat(Times.parseGoDuration("15s")).contains(Duration.ofSeconds(15));
        assertThat(Times.parseGoDuration("14.999812385s")).contains(Duration.ofNanos(14_999_812_385L));
        assertThat(Times.parseGoDuration("1.5s")).contains(Duration.ofMillis(1500));
        assertThat(Times.parseGoDuration("1h2m3.5s")).contains(Duration.ofSeconds(3723, 500_000_000));
        assertThat(Times.parseGoDuration("250ms")).contains(Duration.ofMillis(250));
        assertThat(Times.parseGoDuration("-3us")).contains(Duration.ofNanos(-3000));
        assertThat(Times.parseGoDuration("0")).contains(Duration.ZERO);
        for (String bad : new String[] {"", "15", "s", "1.5x", "1s2", "abc"}) {
            assertThat(Times.parseGoDuration(bad)).as(bad).isEqualTo(Optional.empty());
        }
    }
}
