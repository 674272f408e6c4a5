package io.cybernetes.api;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.Locale;
import java.util.Map;

/**
 * A CronJob's schedule as Kubernetes reads it (the standard cron format): five fields —
 * minute, hour, day of month, month, day of week — each {@code *}, a number, a range
 * {@code a-b}, a step {@code /n}, lists of these, and names for months and days
 * ({@code jan}, {@code mon}); a restricted day of month and day of week match either, as in
 * cron; or one of the macros {@code @yearly}, {@code @annually}, {@code @monthly},
 * {@code @weekly}, {@code @daily}, {@code @midnight}, {@code @hourly} and {@code @every <duration>}.
 * Times are computed in a time zone, to the minute.
 */
public final class CronSchedule {

    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *", "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");
    private static final String[] MONTHS = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
        "nov", "dec"};
    private static final String[] DAYS = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

    /** A schedule that cannot be read, with the reason in cron's words. */
    public static final class Invalid extends IllegalArgumentException {
        Invalid(String message) {
            super(message);
        }
    }

    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet days;
    private final BitSet months;
    private final BitSet weekdays;
    private final boolean anyDay;
    private final boolean anyWeekday;
    private final Duration every;

    private CronSchedule(BitSet minutes, BitSet hours, BitSet days, BitSet months, BitSet weekdays, boolean anyDay,
                         boolean anyWeekday, Duration every) {
        this.minutes = minutes;
        this.hours = hours;
        this.days = days;
        this.months = months;
        this.weekdays = weekdays;
        this.anyDay = anyDay;
        this.anyWeekday = anyWeekday;
        this.every = every;
    }

    public static CronSchedule parse(String spec) {
        String s = spec == null ? "" : spec.trim();
        if (s.startsWith("@every ")) {
            Duration d = everyDuration(s.substring(7).trim());
            return new CronSchedule(null, null, null, null, null, true, true, d);
        }
        if (s.startsWith("@")) {
            String expanded = MACROS.get(s.toLowerCase(Locale.ROOT));
            if (expanded == null) {
                throw new Invalid("unrecognized descriptor: " + s);
            }
            s = expanded;
        }
        String[] f = s.isEmpty() ? new String[0] : s.split("\\s+");
        if (f.length != 5) {
            throw new Invalid("expected exactly 5 fields, found " + f.length + ": " + spec);
        }
        BitSet weekdays = field(f[4], 0, 7, DAYS);
        if (weekdays.get(7)) {
            weekdays.set(0); // 7 is Sunday too
        }
        return new CronSchedule(field(f[0], 0, 59, null), field(f[1], 0, 23, null), field(f[2], 1, 31, null),
                field(f[3], 1, 12, MONTHS), weekdays, star(f[2]), star(f[4]), null);
    }

    private static boolean star(String field) {
        return field.startsWith("*") || field.startsWith("?");
    }

    private static BitSet field(String field, int min, int max, String[] names) {
        BitSet bits = new BitSet(max + 1);
        for (String part : field.split(",", -1)) {
            int step = 1;
            String range = part;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                step = number(part.substring(slash + 1), names, 0);
                range = part.substring(0, slash);
                if (step <= 0) {
                    throw new Invalid("step of range should be a positive number: " + part);
                }
            }
            int from;
            int to;
            if (range.equals("*") || range.equals("?")) {
                from = min;
                to = max;
            } else {
                int dash = range.indexOf('-');
                if (dash >= 0) {
                    from = number(range.substring(0, dash), names, min);
                    to = number(range.substring(dash + 1), names, min);
                } else {
                    from = number(range, names, min);
                    to = slash >= 0 ? max : from;
                }
            }
            if (from < min) {
                throw new Invalid("beginning of range (" + from + ") below minimum (" + min + "): " + part);
            }
            if (to > max) {
                throw new Invalid("end of range (" + to + ") above maximum (" + max + "): " + part);
            }
            if (from > to) {
                throw new Invalid("beginning of range (" + from + ") beyond end of range (" + to + "): " + part);
            }
            for (int i = from; i <= to; i += step) {
                bits.set(i);
            }
        }
        return bits;
    }

    private static int number(String text, String[] names, int offset) {
        if (names != null) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equalsIgnoreCase(text)) {
                    return i + (names == MONTHS ? 1 : 0);
                }
            }
        }
        try {
            int n = Integer.parseInt(text);
            if (n < 0) {
                throw new Invalid("negative number (" + n + ") not allowed: " + text);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new Invalid("failed to parse int from " + text + ": strconv.Atoi: parsing \"" + text
                    + "\": invalid syntax");
        }
    }

    /** Go's duration syntax as {@code @every} takes it: 90s, 1h30m, 2h. */
    private static Duration everyDuration(String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(h|m|s)").matcher(text);
        Duration d = Duration.ZERO;
        int at = 0;
        while (m.find() && m.start() == at) {
            long n = Long.parseLong(m.group(1));
            d = d.plus(switch (m.group(2)) {
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofSeconds(n);
            });
            at = m.end();
        }
        if (at != text.length() || at == 0) {
            throw new Invalid("failed to parse duration @every " + text + ": time: invalid duration \"" + text + "\"");
        }
        return d.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : d;
    }

    /** The first time the schedule fires strictly after {@code t}, in {@code t}'s zone; null if never (within 5 years). */
    public ZonedDateTime next(ZonedDateTime t) {
        if (every != null) {
            return t.plus(every).truncatedTo(ChronoUnit.SECONDS);
        }
        ZonedDateTime c = t.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        ZonedDateTime limit = t.plusYears(5);
        while (c.isBefore(limit)) {
            if (!months.get(c.getMonthValue())) {
                c = c.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1);
                continue;
            }
            if (!dayMatches(c)) {
                c = c.truncatedTo(ChronoUnit.DAYS).plusDays(1);
                continue;
            }
            if (!hours.get(c.getHour())) {
                c = c.truncatedTo(ChronoUnit.HOURS).plusHours(1);
                continue;
            }
            if (!minutes.get(c.getMinute())) {
                c = c.plusMinutes(1);
                continue;
            }
            return c;
        }
        return null;
    }

    private boolean dayMatches(ZonedDateTime c) {
        boolean dom = days.get(c.getDayOfMonth());
        boolean dow = weekdays.get(c.getDayOfWeek().getValue() % 7);
        return anyDay || anyWeekday ? dom && dow : dom || dow;
    }

    /** The time zone of that name, as the CronJob's {@code timeZone} names it; {@link Invalid} when unknown. */
    public static ZoneId zone(String name) {
        if (name == null) {
            return ZoneId.systemDefault();
        }
        try {
            if (name.isEmpty() || name.startsWith("+") || name.startsWith("-") || name.equalsIgnoreCase("local")) {
                throw new java.time.DateTimeException(name);
            }
            return ZoneId.of(name);
        } catch (java.time.DateTimeException e) {
            throw new Invalid("unknown time zone " + name);
        }
    }
}
