package io.cybernetes.api;

import org.junit.jupiter.api.Test;

import java.time.ZoneId;
import java.time.ZonedDateTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** CronJob schedules: the five fields, names, steps, macros, day-of-month or day-of-week, time zones, errors. */
class CronScheduleTest {

    private static final ZoneId UTC = ZoneId.of("UTC");

    private static ZonedDateTime at(String text) {
        return ZonedDateTime.parse(text);
    }

    @Test
    void nextTimesFollowTheFields() {
        ZonedDateTime t = at("2026-12-02T13:07:30Z");
        assertThat(CronSchedule.parse("*/15 * * * *").next(t)).isEqualTo(at("2026-12-02T13:15:00Z"));
        assertThat(CronSchedule.parse("0 9-17/4 * * mon-fri").next(t)).isEqualTo(at("2026-12-02T17:00:00Z"));
        assertThat(CronSchedule.parse("30 2 1 jan,JUL *").next(t)).isEqualTo(at("2027-01-01T02:30:00Z"));
        assertThat(CronSchedule.parse("@hourly").next(t)).isEqualTo(at("2026-12-02T14:00:00Z"));
        assertThat(CronSchedule.parse("@weekly").next(t)).isEqualTo(at("2026-12-06T00:00:00Z"));
        assertThat(CronSchedule.parse("@every 90s").next(t)).isEqualTo(at("2026-12-02T13:09:00Z"));
        // a restricted day of month and day of week: either matches, as in cron (the 13th, or a Sunday)
        assertThat(CronSchedule.parse("0 0 13 * 0").next(t)).isEqualTo(at("2026-12-06T00:00:00Z"));
        // 7 is Sunday too
        assertThat(CronSchedule.parse("0 0 * * 7").next(t)).isEqualTo(at("2026-12-06T00:00:00Z"));
        assertThat(CronSchedule.parse("0 0 30 2 *").next(t)).isNull();
    }

    @Test
    void timesAreComputedInTheTimeZone() {
        ZonedDateTime t = at("2026-12-02T13:07:30Z").withZoneSameInstant(CronSchedule.zone("America/New_York"));
        ZonedDateTime next = CronSchedule.parse("0 9 * * *").next(t);
        assertThat(next.withZoneSameInstant(UTC)).isEqualTo(at("2026-12-02T14:00:00Z").withZoneSameInstant(UTC));
        assertThatThrownBy(() -> CronSchedule.zone("Mars/Olympus")).hasMessage("unknown time zone Mars/Olympus");
        assertThatThrownBy(() -> CronSchedule.zone("Local")).hasMessage("unknown time zone Local");
    }

    @Test
    void aScheduleThatCannotBeReadSaysWhy() {
        assertThatThrownBy(() -> CronSchedule.parse("* * *")).hasMessage("expected exactly 5 fields, found 3: * * *");
        assertThatThrownBy(() -> CronSchedule.parse("61 * * * *")).hasMessage("end of range (61) above maximum (59): 61");
        assertThatThrownBy(() -> CronSchedule.parse("5-2 * * * *"))
                .hasMessage("beginning of range (5) beyond end of range (2): 5-2");
        assertThatThrownBy(() -> CronSchedule.parse("x * * * *")).hasMessageStartingWith("failed to parse int from x");
        assertThatThrownBy(() -> CronSchedule.parse("@fortnightly")).hasMessage("unrecognized descriptor: @fortnightly");
    }
}
