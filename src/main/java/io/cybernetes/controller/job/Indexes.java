package io.cybernetes.controller.job;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Sets of completion indexes as a Job's status writes them: ascending, runs of three or
 * more as intervals ({@code 0-2,4,6-9}), pairs as two numbers ({@code 4,5}).
 */
final class Indexes {

    private Indexes() {
    }

    static TreeSet<Integer> parse(String text) {
        TreeSet<Integer> out = new TreeSet<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String part : text.split(",")) {
            String p = part.trim();
            int dash = p.indexOf('-');
            try {
                if (dash > 0) {
                    int from = Integer.parseInt(p.substring(0, dash));
                    int to = Integer.parseInt(p.substring(dash + 1));
                    for (int i = from; i <= to; i++) {
                        out.add(i);
                    }
                } else if (!p.isEmpty()) {
                    out.add(Integer.parseInt(p));
                }
            } catch (NumberFormatException e) {
                // a part that is no number is no index
            }
        }
        return out;
    }

    /** The set written as the status writes it, or null when it is empty. */
    static String format(TreeSet<Integer> indexes) {
        if (indexes.isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        Integer start = null;
        Integer prev = null;
        for (int i : indexes) {
            if (start == null) {
                start = i;
            } else if (i != prev + 1) {
                add(parts, start, prev);
                start = i;
            }
            prev = i;
        }
        add(parts, start, prev);
        return String.join(",", parts);
    }

    private static void add(List<String> parts, int from, int to) {
        if (from == to) {
            parts.add(Integer.toString(from));
        } else if (to == from + 1) {
            parts.add(from + "," + to);
        } else {
            parts.add(from + "-" + to);
        }
    }
}
