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

/**
 * A server in the test's JVM with the API alone (no controllers, scheduler or nodes) on a
 * PostgreSQL database, and an admin's HTTP calls to it.
 */
class ApiOnlyServer implements AutoCloseable {

    final String base;
    final String token;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ConfigurableApplicationContext server;

    ApiOnlyServer(String name, String jdbcUrl, Duration connectionTimeout) {
        String dataDir = "./target/test-data/" + name;
        server = new SpringApplicationBuilder(CybernetesApplication.class).run(
                "--spring.datasource.url=" + jdbcUrl,
                "--spring.datasource.username=" + PostgresTestDatabase.user(),
                "--spring.datasource.password=",
                "--spring.datasource.hikari.connection-timeout=" + connectionTimeout.toMillis(),
                "--server.port=0",
                "--cybernetes.apiserver.https-port=0",
                "--cybernetes.apiserver.https-address=127.0.0.1",
                "--cybernetes.auth.data-dir=" + dataDir,
                "--cybernetes.controllers.enabled=false",
                "--cybernetes.scheduler.enabled=false",
                "--cybernetes.nodes.count=0",
                "--spring.main.banner-mode=off");
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
