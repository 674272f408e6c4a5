package io.cybernetes.apiserver.internal.audit;

import io.cybernetes.api.Json;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class AuditLogTest {

    @TempDir
    Path dir;

    @Test
    void theLogIsRotatedPastItsSizeKeepingTheNewestBackups() throws Exception {
        Path file = dir.resolve("audit.log");
        try (AuditLog log = new AuditLog(file, 1000, 2)) {
            for (int i = 0; i < 200; i++) {
                log.append("{\"line\":" + i + ",\"pad\":\"" + "x".repeat(80) + "\"}");
                if (i % 20 == 0) {
                    Thread.sleep(5);
                }
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
            assertThat(names).contains("audit.log");
            assertThat(names.stream().filter(n -> n.startsWith("audit-")).count()).isBetween(1L, 2L);
        }
        // the newest lines are kept: the last one is in the current file or, if that was just rotated, the newest backup
        StringBuilder kept = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                kept.append(Files.readString(p));
            }
        }
        assertThat(kept.toString()).contains("\"line\":199,").doesNotContain("\"line\":0,");
    }

    @Test
    void theFirstMatchingRuleSetsTheLevel() {
        AuditPolicy policy = AuditPolicy.parse(Json.YAML.readTree("""
                rules:
                - level: None
                  nonResourceURLs: ["/healthz*"]
                - level: Metadata
                  resources: [{group: "", resources: ["secrets"]}]
                - level: None
                  users: ["system:kube-scheduler"]
                - level: Request
                  verbs: ["create", "update"]
                """));
        UserInfo alice = UserInfo.authenticated("alice", "", List.of());
        assertThat(policy.levelFor(RequestAttributes.nonResource(alice, "get", "/healthz/etcd")))
                .isEqualTo(AuditPolicy.Level.NONE);
        assertThat(policy.levelFor(RequestAttributes.resource(alice, "create", "", "secrets", "", "ns", "s")))
                .isEqualTo(AuditPolicy.Level.METADATA);
        assertThat(policy.levelFor(RequestAttributes.resource(alice, "create", "", "configmaps", "", "ns", "c")))
                .isEqualTo(AuditPolicy.Level.REQUEST);
        assertThat(policy.levelFor(RequestAttributes.resource(UserInfo.authenticated("system:kube-scheduler", "",
                List.of()), "create", "", "pods", "binding", "ns", "p"))).isEqualTo(AuditPolicy.Level.NONE);
        assertThat(policy.levelFor(RequestAttributes.resource(alice, "get", "", "pods", "", "ns", "p")))
                .as("no rule matches").isEqualTo(AuditPolicy.Level.NONE);
    }
}
