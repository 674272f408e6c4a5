package io.cybernetes.node;

import io.cybernetes.api.WebSocketConnection;

import io.cybernetes.api.Json;
import io.cybernetes.api.KubeletApi;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * One node's kubelet endpoints, as the kubelet serves them: {@code /healthz}, {@code /pods}
 * (the pods bound to the node), {@code /metrics/resource} (what its containers use, as the
 * metrics-server scrapes it) and {@code /containerLogs/{namespace}/{pod}/{container}} with
 * the kubelet's query parameters; errors in the kubelet's words.
 */
final class KubeletEndpoints implements KubeletServer.Handler {

    private final NodeAgent agent;
    private final BiFunction<String, String, Optional<Pod>> pods;
    private final Supplier<List<Pod>> all;
    private final Clock clock;

    /**
     * @param pods the pod of a namespace and name as the fleet's watch has it, if bound to this node
     * @param all  every pod bound to this node
     */
    KubeletEndpoints(NodeAgent agent, BiFunction<String, String, Optional<Pod>> pods, Supplier<List<Pod>> all,
                     Clock clock) {
        this.agent = agent;
        this.pods = pods;
        this.all = all;
        this.clock = clock;
    }

    @Override
    public void handle(KubeletServer.Request request, KubeletServer.Response response) throws IOException {
        String path = request.path();
        if (!request.method().equals("GET") && !request.method().equals("POST")) {
            response.text(405, "Method Not Allowed");
        } else if (path.equals("/healthz")) {
            response.text(200, "ok");
        } else if (path.equals("/pods") || path.equals("/pods/")) {
            ObjectNode list = Json.object();
            list.put("kind", "PodList");
            list.put("apiVersion", "v1");
            list.putObject("metadata");
            ArrayNode items = list.putArray("items");
            all.get().forEach(p -> items.add(Json.toTree(p)));
            response.send(200, "application/json", Json.MAPPER.writeValueAsBytes(list));
        } else if (path.equals(KubeletApi.RESOURCE_METRICS)) {
            response.send(200, "text/plain; version=0.0.4", resourceMetrics().getBytes(StandardCharsets.UTF_8));
        } else if (path.startsWith(KubeletApi.CONTAINER_LOGS)) {
            logs(request, response, path.substring(KubeletApi.CONTAINER_LOGS.length()).split("/"));
        } else if (path.startsWith(KubeletApi.PORT_FORWARD)) {
            portForward(request, response, path.substring(KubeletApi.PORT_FORWARD.length()).split("/"));
        } else if (path.startsWith(KubeletApi.EXEC) || path.startsWith(KubeletApi.ATTACH)) {
            boolean attach = path.startsWith(KubeletApi.ATTACH);
            stream(request, response, path.substring((attach ? KubeletApi.ATTACH : KubeletApi.EXEC).length())
                    .split("/"), attach);
        } else {
            response.text(404, "404 page not found");
        }
    }

    /**
     * The kubelet's resource metrics in the Prometheus text format, each sample stamped with
     * the time it was read (milliseconds), under the kubelet's names.
     */
    private String resourceMetrics() {
        // read as of a whole millisecond, the precision of the samples' timestamps, so rates come out exact
        ResourceUsage.Scrape s = agent.usage().scrape(all.get(), clock.instant().truncatedTo(ChronoUnit.MILLIS));
        long at = s.at().toEpochMilli();
        StringBuilder out = new StringBuilder(4096);
        family(out, "container_cpu_usage_seconds_total", "counter",
                "Cumulative cpu time consumed by the container in core-seconds");
        s.containers().forEach(c -> sample(out, "container_cpu_usage_seconds_total", c, c.cpuSeconds(), at));
        family(out, "container_memory_working_set_bytes", "gauge", "Current working set of the container in bytes");
        s.containers().forEach(c -> sample(out, "container_memory_working_set_bytes", c, c.memoryBytes(), at));
        family(out, "container_start_time_seconds", "gauge", "Start time of the container since unix epoch in seconds");
        s.containers().forEach(c -> sample(out, "container_start_time_seconds", c,
                c.started().getEpochSecond(), c.started().toEpochMilli()));
        family(out, "node_cpu_usage_seconds_total", "counter", "Cumulative cpu time consumed by the node in core-seconds");
        out.append("node_cpu_usage_seconds_total ").append(s.nodeCpuSeconds()).append(' ').append(at).append('\n');
        family(out, "node_memory_working_set_bytes", "gauge", "Current working set of the node in bytes");
        out.append("node_memory_working_set_bytes ").append(s.nodeMemoryBytes()).append(' ').append(at).append('\n');
        family(out, "resource_scrape_error", "gauge", "1 if there was an error while getting container metrics, 0 otherwise");
        out.append("resource_scrape_error 0\n");
        return out.toString();
    }

    private static void family(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(" [STABLE] ").append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder out, String name, ResourceUsage.ContainerPoint c, double value, long at) {
        out.append(name).append("{container=\"").append(c.container()).append("\",namespace=\"").append(c.namespace())
                .append("\",pod=\"").append(c.pod()).append("\"} ").append(value).append(' ').append(at).append('\n');
    }

    private void logs(KubeletServer.Request request, KubeletServer.Response response, String[] parts)
            throws IOException {
        if (parts.length != 3) {
            response.text(400, "containerLogs needs /containerLogs/{namespace}/{pod}/{container}");
            return;
        }
        String namespace = parts[0];
        String name = parts[1];
        String container = parts[2];
        Pod pod = pods.apply(namespace, name).orElse(null);
        if (pod == null) {
            response.text(404, "pod \"" + name + "\" does not exist");
            return;
        }
        if (NodeAgent.container(pod, container).isEmpty()) {
            response.text(404, "container \"" + container + "\" not found in pod \"" + name + "\"");
            return;
        }
        boolean previous = request.flag("previous");
        ContainerLog.Query query;
        try {
            query = query(request);
        } catch (IllegalArgumentException e) {
            response.text(400, e.getMessage());
            return;
        }
        Optional<ContainerLog> log = agent.log(pod, container, previous);
        if (log.isEmpty()) {
            response.text(400, previous ? "previous terminated container \"" + container + "\" in pod \"" + name
                    + "\" not found" : "container \"" + container + "\" in pod \"" + name + "\" is waiting to start: "
                    + waitingReason(pod, container));
            return;
        }
        try (OutputStream out = response.chunked("text/plain")) {
            log.get().write(query, out, request::open);
        }
    }

    /**
     * {@code exec} and {@code attach} over a WebSocket in the channel protocol: exec runs the
     * command in the container's shell; attach joins the container's own process — a shell
     * when the container keeps stdin open (its exit ends the container with its code), else
     * the container's output from now on.
     */
    private void stream(KubeletServer.Request request, KubeletServer.Response response, String[] parts,
                        boolean attach) throws IOException {
        if (parts.length != 3) {
            response.text(400, "needs /{namespace}/{pod}/{container}");
            return;
        }
        Pod pod = pods.apply(parts[0], parts[1]).orElse(null);
        if (pod == null) {
            response.text(404, "pod does not exist");
            return;
        }
        String name = parts[2];
        var container = NodeAgent.container(pod, name);
        if (container.isEmpty() || !NodeAgent.running(pod, name)) {
            response.text(404, "container not found (\"" + name + "\")");
            return;
        }
        if (!WebSocket.requested(request)) {
            response.text(400, "Upgrade request required");
            return;
        }
        List<String> command = request.query().getOrDefault("command", List.of());
        boolean tty = request.flag("tty");
        boolean stdout = request.flag("output");
        boolean stderr = request.flag("error") && !tty;
        WebSocketConnection ws = WebSocket.accept(request, response, StreamChannels.PROTOCOLS);
        if (ws == null) {
            return;
        }
        StreamChannels channels = new StreamChannels(ws);
        channels.open(stdout, stderr);
        channels.start(Thread.currentThread());
        InputStream in = request.flag("input") ? channels.stdin() : InputStream.nullInputStream();
        OutputStream out = stdout ? channels.channel(StreamChannels.STDOUT) : OutputStream.nullOutputStream();
        OutputStream err = stderr ? channels.channel(StreamChannels.STDERR) : tty ? out : OutputStream.nullOutputStream();
        int code;
        try {
            code = attach ? agent.attach(pod, container.get(), in, out, err, tty, channels::open)
                    : agent.shell(pod, container.get(), tty).exec(command, in, out, err);
        } catch (java.io.InterruptedIOException e) {
            code = 130; // the client went
        }
        channels.finish(code, command);
    }

    /**
     * {@code portForward} over a WebSocket: SPDY tunnelled in its messages as kubectl asks
     * ({@link SpdyPortForward}), or the channel protocol older clients use — the ports in
     * the query, each port i on channels 2i (data) and 2i+1 (errors), both first carrying
     * the port number (two bytes, little-endian).
     */
    private void portForward(KubeletServer.Request request, KubeletServer.Response response, String[] parts)
            throws IOException {
        if (parts.length != 2) {
            response.text(400, "needs /portForward/{namespace}/{pod}");
            return;
        }
        Pod pod = pods.apply(parts[0], parts[1]).orElse(null);
        if (pod == null) {
            response.text(404, "pod does not exist");
            return;
        }
        if (!WebSocket.requested(request)) {
            response.text(400, "Upgrade request required");
            return;
        }
        List<Integer> ports = new java.util.ArrayList<>();
        for (String p : request.query().getOrDefault("port", List.of())) {
            try {
                int n = Integer.parseInt(p.trim());
                if (n < 1 || n > 65535) {
                    throw new NumberFormatException();
                }
                ports.add(n);
            } catch (NumberFormatException e) {
                response.text(400, "unable to parse \"" + p + "\" as a port: invalid port");
                return;
            }
        }
        boolean tunnel = request.headers().getOrDefault("sec-websocket-protocol", "").contains(SpdyPortForward.PROTOCOL);
        if (!tunnel && ports.isEmpty()) {
            response.text(400, "query parameter \"port\" is required");
            return;
        }
        WebSocketConnection ws = WebSocket.accept(request, response, List.of(SpdyPortForward.PROTOCOL, StreamChannels.V4,
                StreamChannels.V1));
        if (ws == null) {
            return;
        }
        if (ws.protocol().equals(SpdyPortForward.PROTOCOL)) {
            new SpdyPortForward(ws, pod).run();
            return;
        }
        ChannelPortForward.run(ws, pod, ports);
    }

    private ContainerLog.Query query(KubeletServer.Request r) {
        Instant since = null;
        if (r.parameter("sinceSeconds") != null) {
            since = clock.instant().minusSeconds(number(r, "sinceSeconds"));
        } else if (r.parameter("sinceTime") != null) {
            try {
                since = Instant.parse(r.parameter("sinceTime"));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("sinceTime: " + e.getParsedString() + " is not an RFC 3339 time");
            }
        }
        Long tail = r.parameter("tailLines") == null ? null : number(r, "tailLines");
        Long limit = r.parameter("limitBytes") == null ? null : number(r, "limitBytes");
        return new ContainerLog.Query(since, tail, limit, r.flag("timestamps"), r.flag("follow"));
    }

    private static long number(KubeletServer.Request r, String name) {
        try {
            return Long.parseLong(r.parameter(name));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": " + r.parameter(name) + " is not a number");
        }
    }

    static String waitingReason(Pod pod, String container) {
        List<ContainerStatus> statuses = pod.getStatus() == null ? null : pod.getStatus().getContainerStatuses();
        for (ContainerStatus s : Objects.requireNonNullElse(statuses, List.<ContainerStatus>of())) {
            if (s.getName().equals(container) && s.getState() != null && s.getState().getWaiting() != null
                    && s.getState().getWaiting().getReason() != null) {
                return s.getState().getWaiting().getReason();
            }
        }
        return "ContainerCreating";
    }
}
