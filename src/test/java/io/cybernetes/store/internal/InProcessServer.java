package io.cybernetes.store.internal;

import io.cybernetes.CybernetesApplication;
import io.cybernetes.apiserver.ApiServerEndpoints;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A server in the test's JVM on a PostgreSQL database, by default the API alone (no
 * controllers, scheduler or nodes), and an admin's HTTP calls to it.
 */
class InProcessServer implements AutoCloseable {

    final String base;
    final String token;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ConfigurableApplicationContext server;

    InProcessServer(String name, String jdbcUrl, Duration connectionTimeout) {
        this(name, jdbcUrl, connectionTimeout, Map.of());
    }

    /** With settings over the defaults below (the controllers, the scheduler and nodes switched on, say). */
    InProcessServer(String name, String jdbcUrl, Duration connectionTimeout, Map<String, String> settings) {
        String dataDir = "./target/test-data/" + name;
        Map<String, String> all = new LinkedHashMap<>();
        all.put("spring.datasource.url", jdbcUrl);
        all.put("spring.datasource.username", PostgresTestDatabase.user());
        all.put("spring.datasource.password", "");
        all.put("spring.datasource.hikari.connection-timeout", Long.toString(connectionTimeout.toMillis()));
        all.put("server.port", "0");
        all.put("cybernetes.apiserver.https-port", "0");
        all.put("cybernetes.apiserver.https-address", "127.0.0.1");
        all.put("cybernetes.auth.data-dir", dataDir);
        all.put("cybernetes.controllers.enabled", "false");
        all.put("cybernetes.scheduler.enabled", "false");
        all.put("cybernetes.nodes.count", "0");
        // compaction runs during the faults too: it must not fail loudly while the database is away
        all.put("cybernetes.store.compaction-interval", "2s");
        all.put("spring.main.banner-mode", "off");
        all.putAll(settings);
        server = new SpringApplicationBuilder(CybernetesApplication.class).run(all.entrySet().stream()
                .map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new));
        base = "http://127.0.0.1:" + server.getBean(ApiServerEndpoints.class).httpPort();
        try {
            token = Files.readString(Path.of(dataDir, "pki", "admin.token")).trim();
        } catch (java.io.IOException e) {
            server.close();
            throw new java.io.UncheckedIOException(e);
        }
    }

    HttpResponse<String> call(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        server.close();
    }
}
