package io.cybernetes.apiserver.internal;

import io.cybernetes.api.Json;
import io.cybernetes.store.Store;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ObjectNode;

import java.time.Instant;

/** {@code /version} and the kube-apiserver style health endpoints. */
@Tag(name = "server", description = "Version and health")
@RestController
class ServerInfoController {

    private final Store store;

    ServerInfoController(Store store) {
        this.store = store;
    }

    @Operation(summary = "The Kubernetes version this server speaks (kubectl picks its binary by it)")
    @GetMapping("/version")
    ResponseEntity<byte[]> version() {
        ObjectNode o = Json.object();
        o.put("major", "1");
        o.put("minor", "32");
        o.put("gitVersion", io.cybernetes.api.Version.GIT_VERSION);
        o.put("gitCommit", "");
        o.put("gitTreeState", "clean");
        o.put("buildDate", Instant.EPOCH.toString());
        o.put("goVersion", "java" + System.getProperty("java.version"));
        o.put("compiler", "javac");
        o.put("platform", System.getProperty("os.name").toLowerCase() + "/" + System.getProperty("os.arch"));
        // as kube-apiserver writes it: always indented
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(Json.pretty(o));
    }

    @Operation(summary = "Liveness and readiness, as text")
    @GetMapping(value = {"/healthz", "/livez", "/readyz"}, produces = MediaType.TEXT_PLAIN_VALUE)
    ResponseEntity<String> health(@RequestParam(required = false) String verbose) {
        boolean ok;
        String detail;
        try {
            long revision = store.currentRevision();
            ok = true;
            detail = "[+]store ok (revision " + revision + ", cached " + store.cachedRevision() + ")";
        } catch (RuntimeException e) {
            ok = false;
            detail = "[-]store failed: reason withheld";
        }
        String body;
        if (verbose != null) {
            body = "[+]ping ok\n[+]log ok\n" + detail + "\n" + (ok ? "healthz check passed\n" : "healthz check failed\n");
        } else {
            body = ok ? "ok" : "[-]store failed: reason withheld\nhealthz check failed";
        }
        return ResponseEntity.status(ok ? 200 : 500).contentType(MediaType.TEXT_PLAIN).body(body);
    }
}
