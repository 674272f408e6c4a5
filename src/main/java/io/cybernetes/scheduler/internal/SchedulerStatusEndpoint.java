package io.cybernetes.scheduler.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.client.Samples;
import io.cybernetes.scheduler.Scheduler;
import io.cybernetes.scheduler.SchedulerManager;
import io.cybernetes.scheduler.SchedulingQueue;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the scheduler is doing, for the dashboard and {@code kubectl get}: whether this
 * replica schedules, pods bound, attempts and the unschedulable ones, bindings refused,
 * preemptions, the average cycle and binding, bindings under way, the queue's depths; with
 * {@code samples=true} also the last 15 minutes every 5 s (bound and attempts are counters,
 * pending a gauge). A read-only view {@code schedulers} in {@code status.cybernetes.io}
 * (the {@code view} role reads it).
 */
@RestController
@Tag(name = "status.cybernetes.io/v1 scheduler", description = "What the scheduler is doing")
class SchedulerStatusEndpoint {

    static final String ROOT = "/apis/status.cybernetes.io/v1/schedulers";

    private final SchedulerManager manager;
    private final Samples samples;

    SchedulerStatusEndpoint(SchedulerManager manager, @Qualifier("schedulerSamples") Samples samples,
                            ResourceRegistry registry) {
        this.manager = manager;
        registry.register(ResourceRegistry.view("Scheduler", "schedulers", false));
        this.samples = samples;
    }

    @Operation(summary = "The scheduler (one: default-scheduler); samples=true adds the last 15 minutes")
    @GetMapping(ROOT)
    ResponseEntity<byte[]> schedulers(@RequestParam(required = false) boolean samples) {
        ObjectNode list = Json.object();
        list.put("kind", "SchedulerList");
        list.put("apiVersion", "status.cybernetes.io/v1");
        list.putObject("metadata");
        list.putArray("items").add(scheduler());
        if (samples) {
            list.set("samples", Json.MAPPER.valueToTree(this.samples.series()));
        }
        return json(list);
    }

    @Operation(summary = "The scheduler's status")
    @GetMapping(ROOT + "/{name}")
    ResponseEntity<byte[]> scheduler(@PathVariable String name) {
        if (!SchedulerManager.SCHEDULER_NAME.equals(name)) {
            throw ApiException.notFound("schedulers.status.cybernetes.io \"" + name + "\" not found");
        }
        return json(scheduler());
    }

    private ObjectNode scheduler() {
        ObjectNode o = Json.object();
        o.put("kind", "Scheduler");
        o.put("apiVersion", "status.cybernetes.io/v1");
        o.putObject("metadata").put("name", SchedulerManager.SCHEDULER_NAME);
        ObjectNode st = o.putObject("status");
        st.put("leader", manager.isLeader());
        Scheduler.Stats s = manager.stats().orElse(null);
        if (s != null) {
            st.put("attempts", s.attempts());
            st.put("bound", s.bound());
            st.put("unschedulable", s.unschedulable());
            st.put("bindFailures", s.bindFailures());
            st.put("preemptions", s.preemptions());
            st.put("cycleMillisAvg", round(s.cycleNanos() / 1e6 / Math.max(1, s.attempts())));
            st.put("bindMillisAvg", round(s.bindNanos() / 1e6 / Math.max(1, s.bound() + s.bindFailures())));
            st.put("bindsInFlight", s.bindsInFlight());
        }
        SchedulingQueue.Depths d = manager.queueDepths().orElse(null);
        if (d != null) {
            st.putObject("queue").put("active", d.active()).put("backoff", d.backoff())
                    .put("unschedulable", d.unschedulable());
        }
        return o;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static ResponseEntity<byte[]> json(JsonNode body) {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.MAPPER.writeValueAsBytes(body));
    }
}
