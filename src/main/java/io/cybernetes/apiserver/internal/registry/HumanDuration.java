package io.cybernetes.apiserver.internal.registry;

import java.time.Duration;

/** Ages the way kubectl prints them: 45s, 5m3s, 17m, 3h12m, 10h, 2d5h, 30d, 2y10d. */
public final class HumanDuration {

    private HumanDuration() {
    }

    public static String format(Duration d) {
        long seconds = d.getSeconds();
        if (seconds < -1) {
            return "<invalid>";
        }
        if (seconds < 0) {
            return "0s";
        }
        if (seconds < 120) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            long s = seconds % 60;
            return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
        }
        if (minutes < 180) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            long m = minutes % 60;
            return m == 0 ? hours + "h" : hours + "h" + m + "m";
        }
        if (hours < 48) {
            return hours + "h";
        }
        if (hours < 24 * 8) {
            long h = hours % 24;
            return h == 0 ? hours / 24 + "d" : hours / 24 + "d" + h + "h";
        }
        if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        }
        if (hours < 24 * 365 * 8) {
            long dy = (hours / 24) % 365;
            return dy == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + dy + "d";
        }
        return hours / 24 / 365 + "y";
    }
}
