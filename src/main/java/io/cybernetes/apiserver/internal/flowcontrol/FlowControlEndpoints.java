package io.cybernetes.apiserver.internal.flowcontrol;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * kube-apiserver's {@code /debug/api_priority_and_fairness/dump_*} tables: the priority levels with
 * their seats, the queues holding requests, and the requests waiting. Authorized as non-resource URLs.
 */
@RestController
class FlowControlEndpoints {

    private final FlowControl flowControl;

    FlowControlEndpoints(FlowControl flowControl) {
        this.flowControl = flowControl;
    }

    @GetMapping("/debug/api_priority_and_fairness/dump_priority_levels")
    ResponseEntity<String> priorityLevels() {
        return text(flowControl.dumpPriorityLevels());
    }

    @GetMapping("/debug/api_priority_and_fairness/dump_queues")
    ResponseEntity<String> queues() {
        return text(flowControl.dumpQueues());
    }

    @GetMapping("/debug/api_priority_and_fairness/dump_requests")
    ResponseEntity<String> requests() {
        return text(flowControl.dumpRequests());
    }

    /** Plain text whatever the client accepts, as kube-apiserver answers these. */
    private static ResponseEntity<String> text(String body) {
        return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body(body);
    }
}
