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

    @Operation(summary = "Liveness: the process serves (the database is readiness' concern, not liveness')")
    @GetMapping(value = "/livez", produces = MediaType.TEXT_PLAIN_VALUE)
    ResponseEntity<String> livez(@RequestParam(required = false) String verbose) {
        return health("livez", verbose, false);
    }

    @Operation(summary = "Readiness: the process serves and its database answers")
    @GetMapping(value = "/readyz", produces = MediaType.TEXT_PLAIN_VALUE)
    ResponseEntity<String> readyz(@RequestParam(required = false) String verbose) {
        return health("readyz", verbose, true);
    }

    @Operation(summary = "Health, the older endpoint: as readiness")
    @GetMapping(value = "/healthz", produces = MediaType.TEXT_PLAIN_VALUE)
    ResponseEntity<String> healthz(@RequestParam(required = false) String verbose) {
        return health("healthz", verbose, true);
    }

    /**
     * The checks as kube-apiserver prints them: {@code ok} when all pass (each check on its
     * own line with {@code verbose}), and on a failure 500 with every check listed, the
     * failing ones as {@code [-]name failed: reason withheld}. The database check reads
     * what the store last saw (it asks the database every poll interval), so it answers at
     * once even while the database does not.
     */
    private ResponseEntity<String> health(String name, String verbose, boolean withDatabase) {
        StringBuilder checks = new StringBuilder("[+]ping ok\n[+]log ok\n");
        boolean ok = true;
        if (withDatabase) {
            ok = store.databaseProblem() == null;
            checks.append(ok ? "[+]database ok\n" : "[-]database failed: reason withheld\n");
        }
        if (!ok) {
            return ResponseEntity.status(500).contentType(MediaType.TEXT_PLAIN)
                    .body(checks + name + " check failed\n");
        }
        return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN)
                .body(verbose != null ? checks + name + " check passed\n" : "ok");
    }
}
