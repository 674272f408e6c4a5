package io.cybernetes.controller;

import io.fabric8.kubernetes.api.model.IntOrString;

/** An int-or-percent field (maxSurge, maxUnavailable) resolved against a total. */
public final class IntOrPercent {

    private IntOrPercent() {
    }

    /**
     * The value: an integer as it is, {@code "N%"} as N percent of {@code total} rounded up
     * or down; {@code fallback} when unset. A malformed value counts as the fallback (the
     * API server's validation refuses those before they are stored).
     */
    public static int resolve(IntOrString value, String fallback, int total, boolean roundUp) {
        if (value != null && value.getIntVal() != null) {
            return Math.max(0, value.getIntVal());
        }
        String s = value == null || value.getStrVal() == null ? fallback : value.getStrVal().trim();
        if (!s.endsWith("%")) {
            try {
                return Math.max(0, Integer.parseInt(s));
            } catch (NumberFormatException e) {
                return resolve(null, fallback, total, roundUp);
            }
        }
        int percent;
        try {
            percent = Integer.parseInt(s.substring(0, s.length() - 1));
        } catch (NumberFormatException e) {
            return value == null ? 0 : resolve(null, fallback, total, roundUp);
        }
        long scaled = (long) percent * total;
        return (int) Math.max(0, roundUp ? (scaled + 99) / 100 : scaled / 100);
    }
}
