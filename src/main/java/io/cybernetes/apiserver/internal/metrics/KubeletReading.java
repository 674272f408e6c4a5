package io.cybernetes.apiserver.internal.metrics;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a kubelet's {@code /metrics/resource}, read as the metrics-server reads it:
 * the node's cumulative cpu and working set, and each container's with its start time.
 * Samples without a timestamp take the scrape's time.
 *
 * @param node       the node's reading (null when the kubelet reported none)
 * @param containers each container's, by {@code namespace/pod} then container name
 */
record KubeletReading(Reading node, Map<String, Map<String, Reading>> containers) {

    /** Cumulative cpu (core-seconds) and working set (bytes) as of {@code at}; {@code started} for containers. */
    record Reading(Instant at, double cpuSeconds, long memoryBytes, Instant started) {
    }

    private static final Pattern LINE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+(-?\\d+))?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** A partial reading while the lines are read: nulls until a sample sets them. */
    private static final class Partial {
        Instant at;
        Double cpu;
        Long memory;
        Instant started;

        Reading done() {
            return cpu == null || memory == null ? null : new Reading(at, cpu, memory, started);
        }
    }

    static KubeletReading parse(String text, Instant scrapedAt) {
        Partial node = new Partial();
        Map<String, Map<String, Partial>> containers = new HashMap<>();
        for (String line : text.split("\n")) {
            line = line.trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            double value;
            try {
                value = Double.parseDouble(m.group(3));
            } catch (NumberFormatException e) {
                continue;
            }
            Instant at = m.group(4) == null ? scrapedAt : Instant.ofEpochMilli(Long.parseLong(m.group(4)));
            String name = m.group(1);
            Partial p;
            if (name.startsWith("node_")) {
                p = node;
            } else if (name.startsWith("container_")) {
                Map<String, String> labels = labels(m.group(2));
                String ns = labels.get("namespace");
                String pod = labels.get("pod");
                String container = labels.get("container");
                if (ns == null || pod == null || container == null) {
                    continue;
                }
                p = containers.computeIfAbsent(ns + "/" + pod, k -> new HashMap<>())
                        .computeIfAbsent(container, k -> new Partial());
            } else {
                continue;
            }
            switch (name) {
                case "node_cpu_usage_seconds_total", "container_cpu_usage_seconds_total" -> {
                    p.cpu = value;
                    p.at = at;
                }
                case "node_memory_working_set_bytes", "container_memory_working_set_bytes" -> p.memory = (long) value;
                case "container_start_time_seconds" -> p.started = Instant.ofEpochMilli((long) (value * 1000));
                default -> {
                }
            }
        }
        Map<String, Map<String, Reading>> done = new HashMap<>();
        containers.forEach((pod, cs) -> {
            Map<String, Reading> readings = new HashMap<>();
            cs.forEach((c, p) -> {
                Reading r = p.done();
                if (r != null) {
                    readings.put(c, r);
                }
            });
            if (!readings.isEmpty()) {
                done.put(pod, readings);
            }
        });
        return new KubeletReading(node.done(), done);
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> out = new HashMap<>();
        if (text != null) {
            Matcher m = LABEL.matcher(text);
            while (m.find()) {
                out.put(m.group(1), m.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
            }
        }
        return out;
    }
}
