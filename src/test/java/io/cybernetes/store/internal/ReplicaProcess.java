package io.cybernetes.store.internal;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A replica of the application in a process of its own on the test PostgreSQL (the test's
 * classpath, plain HTTP on a port of its own), for faults a process in the test's JVM
 * cannot have: {@link #kill()} is {@code kill -9}.
 */
final class ReplicaProcess implements AutoCloseable {

    private final Process process;
    private final Path dir;
    private final Path log;
    private final int port;

    private ReplicaProcess(Process process, Path dir, Path log, int port) {
        this.process = process;
        this.dir = dir;
        this.log = log;
        this.port = port;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Starts a replica working in {@code dir} (its data directory is {@code dir/data}) with these settings. */
    static ReplicaProcess start(Path dir, List<String> settings) throws IOException {
        Files.createDirectories(dir);
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx768m", "-cp", System.getProperty("java.class.path"), "io.cybernetes.CybernetesApplication",
                "--server.port=" + port, "--cybernetes.apiserver.https-port=" + freePort(),
                "--cybernetes.apiserver.https-address=127.0.0.1",
                "--cybernetes.auth.data-dir=" + dir.resolve("data"),
                "--spring.datasource.url=" + PostgresTestDatabase.url(),
                "--spring.datasource.username=" + PostgresTestDatabase.user(),
                "--spring.datasource.password=",
                "--cybernetes.store.poll-interval=50ms",
                "--spring.main.banner-mode=off"));
        cmd.addAll(settings);
        Path log = dir.resolve("replica.log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        return new ReplicaProcess(p, dir, log, port);
    }

    String base() {
        return "http://127.0.0.1:" + port;
    }

    /** Waits until the replica answers /readyz with ok; its admin token then. */
    String awaitReady(HttpClient http) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the replica ended:\n" + Files.readString(log));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + "/readyz"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return Files.readString(dir.resolve("data/pki/admin.token")).trim();
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(300);
        }
        throw new AssertionError("the replica did not become ready:\n" + Files.readString(log));
    }

    /** Waits until the replica's log has a line containing the text. */
    void awaitLog(String text, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.readString(log).contains(text)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no \"" + text + "\" in the replica's log within " + within + ":\n"
                + Files.readString(log));
    }

    /** {@code kill -9}: no shutdown hook, no Lease released, connections left as they are. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
