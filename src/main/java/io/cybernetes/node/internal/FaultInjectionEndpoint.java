package io.cybernetes.node.internal;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.node.NodeAgent;
import io.cybernetes.node.NodeFleet;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * Fault injection into the nodes this process simulates, for trying out (and testing) how
 * the control plane copes: a node's heartbeats stopped and resumed, a node reporting
 * NotReady and Ready again, a pod's container crashing. Authorized by RBAC as
 * {@code create} on {@code nodes/faults} and {@code pods/faults} in
 * {@code status.cybernetes.io}, which no bootstrap role but cluster-admin grants.
 */
@RestController
@Tag(name = "status.cybernetes.io/v1 faults", description = "Fault injection into the simulated nodes (admin only)")
class FaultInjectionEndpoint {

    static final List<String> NODE_ACTIONS = List.of("StopHeartbeats", "ResumeHeartbeats", "NotReady", "Ready");

    private final SimulatedNodes nodes;

    FaultInjectionEndpoint(SimulatedNodes nodes) {
        this.nodes = nodes;
    }

    private NodeFleet fleet() {
        return nodes.fleet().orElseThrow(() -> ApiException.notFound("this process simulates no nodes"));
    }

    private NodeAgent agent(String name) {
        return fleet().agent(name).orElseThrow(() -> ApiException.notFound("node \"" + name
                + "\" is not simulated by this process"));
    }

    @Operation(summary = "The faults injected into a simulated node")
    @GetMapping("/apis/status.cybernetes.io/v1/nodes/{name}/faults")
    ResponseEntity<byte[]> nodeFaults(@PathVariable String name) {
        return faults(name, agent(name));
    }

    @Operation(summary = "Inject a fault into a simulated node: {\"action\": \"StopHeartbeats\" | \"ResumeHeartbeats\""
            + " | \"NotReady\" | \"Ready\"}")
    @PostMapping("/apis/status.cybernetes.io/v1/nodes/{name}/faults")
    ResponseEntity<byte[]> injectNodeFault(@PathVariable String name, @RequestBody(required = false) byte[] body) {
        String action = fault(body).path("action").asString();
        NodeAgent agent = agent(name);
        switch (action) {
            case "StopHeartbeats" -> agent.heartbeats(false);
            case "ResumeHeartbeats" -> agent.heartbeats(true);
            case "NotReady" -> agent.ready(false);
            case "Ready" -> agent.ready(true);
            default -> throw ApiException.badRequest("unknown node fault action \"" + action + "\": one of "
                    + String.join(", ", NODE_ACTIONS));
        }
        return faults(name, agent);
    }

    @Operation(summary = "Crash a container of a pod on a simulated node: {\"action\": \"CrashContainer\","
            + " \"container\": name (default: the first), \"exitCode\": code (default 1)}")
    @PostMapping("/apis/status.cybernetes.io/v1/namespaces/{namespace}/pods/{name}/faults")
    ResponseEntity<byte[]> injectPodFault(@PathVariable String namespace, @PathVariable String name,
                                          @RequestBody(required = false) byte[] body) {
        JsonNode o = fault(body);
        String action = o.path("action").asString();
        if (!"CrashContainer".equals(action)) {
            throw ApiException.badRequest("unknown pod fault action \"" + action + "\": CrashContainer");
        }
        JsonNode exit = o.path("exitCode");
        if (!exit.isMissingNode() && !exit.isInt()) {
            throw ApiException.badRequest("exitCode must be an integer");
        }
        String container = o.path("container").isString() ? o.path("container").asString() : null;
        int exitCode = exit.isInt() ? exit.asInt() : 1;
        NodeFleet fleet = fleet();
        if (fleet.pod(namespace, name).isEmpty()) {
            throw ApiException.notFound("pod \"" + name + "\" in namespace \"" + namespace
                    + "\" is not running on a node this process simulates");
        }
        if (!fleet.crash(namespace, name, container, exitCode)) {
            throw ApiException.badRequest("pod \"" + name + "\" has no container \"" + container + "\"");
        }
        ObjectNode out = Json.object();
        out.put("kind", "PodFault");
        out.put("apiVersion", "status.cybernetes.io/v1");
        out.putObject("metadata").put("name", name).put("namespace", namespace);
        out.putObject("status").put("action", action).put("container", container).put("exitCode", exitCode);
        return json(out);
    }

    /** The fault asked for, parsed once: an object with a non-empty {@code action}. */
    private static JsonNode fault(byte[] body) {
        if (body == null || body.length == 0) {
            throw ApiException.badRequest("a fault needs a body: {\"action\": ...}");
        }
        JsonNode fault = Json.parseObject(body, false);
        JsonNode action = fault.path("action");
        if (!action.isString() || action.asString().isEmpty()) {
            throw ApiException.badRequest("a fault needs an \"action\"");
        }
        return fault;
    }

    private static ResponseEntity<byte[]> faults(String name, NodeAgent agent) {
        ObjectNode out = Json.object();
        out.put("kind", "NodeFaults");
        out.put("apiVersion", "status.cybernetes.io/v1");
        out.putObject("metadata").put("name", name);
        NodeAgent.Faults f = agent.faults();
        out.putObject("status").put("heartbeating", f.heartbeating()).put("ready", f.ready());
        return json(out);
    }

    private static ResponseEntity<byte[]> json(ObjectNode o) {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.MAPPER.writeValueAsBytes(o));
    }
}
