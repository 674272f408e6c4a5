package io.cybernetes.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A replicated PostgreSQL as its users run it, on 127.0.0.1 in a directory of its own: one
 * etcd and two PostgreSQL servers, each managed by Patroni, the standby synchronous (a
 * commit is acknowledged once the standby has it). {@link #kill} is the loss of a database
 * host ({@code kill -9} of its Patroni and its PostgreSQL): once the leader key in etcd
 * expires the standby is promoted. The Debian packages {@code patroni}, {@code python3-etcd},
 * {@code etcd-server} and PostgreSQL 15 provide the programs; PostgreSQL will not run as
 * root, so as root everything runs as the {@code postgres} user.
 */
public final class PatroniCluster implements AutoCloseable {

    /** Where PostgreSQL's programs are ({@code CYBERNETES_TEST_PG_BIN}, else Debian's PostgreSQL 15). */
    static final Path PG_BIN = Path.of(System.getenv().getOrDefault("CYBERNETES_TEST_PG_BIN",
            "/usr/lib/postgresql/15/bin"));
    /** Seconds the leader key lives without its holder renewing it: how long a failover takes at least. */
    public static final int TTL_SECONDS = 10;

    private final Path dir;
    private final boolean asPostgres;
    private final int etcdPort;
    private Process etcd;
    private final Node[] nodes = new Node[2];
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final class Node {
        final String name;
        final int pgPort;
        final int apiPort;
        Process patroni;

        Node(String name) throws IOException {
            this.name = name;
            this.pgPort = freePort();
            this.apiPort = freePort();
        }

        Path config() {
            return dir.resolve(name + ".yml");
        }

        Path data() {
            return dir.resolve(name);
        }
    }

    /** Whether the programs are installed (the tests that need them are skipped otherwise). */
    public static boolean available() {
        return onPath("patroni") && onPath("etcd") && Files.isExecutable(PG_BIN.resolve("postgres"));
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts etcd, then the first node (the primary), then the second (its synchronous
     * standby); on a failure, what was started is stopped again.
     */
    public PatroniCluster() throws Exception {
        dir = Files.createTempDirectory("cybernetes-patroni-");
        asPostgres = "root".equals(System.getProperty("user.name"));
        etcdPort = freePort();
        try {
            if (asPostgres) {
                run(List.of("chown", "postgres", dir.toString()));
            }
            int peerPort = freePort();
            etcd = start("etcd", List.of("etcd", "--name", "etcd", "--data-dir", dir.resolve("etcd").toString(),
                    "--listen-client-urls", "http://127.0.0.1:" + etcdPort,
                    "--advertise-client-urls", "http://127.0.0.1:" + etcdPort,
                    "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                    "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                    "--initial-cluster", "etcd=http://127.0.0.1:" + peerPort));
            await("etcd answers", Duration.ofSeconds(30), () -> get("http://127.0.0.1:" + etcdPort + "/version") == 200);
            for (int i = 0; i < nodes.length; i++) {
                nodes[i] = new Node("pg" + i);
                Files.writeString(nodes[i].config(), config(nodes[i]));
            }
            if (asPostgres) {
                run(List.of("chown", "-R", "postgres", dir.toString()));
            }
            start(0);
            awaitPrimary(0, Duration.ofSeconds(60));
            start(1);
            awaitSynchronousStandby(1, Duration.ofSeconds(60));
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private String config(Node n) {
        return """
                scope: cybernetes
                name: %1$s
                restapi:
                  listen: 127.0.0.1:%2$d
                  connect_address: 127.0.0.1:%2$d
                etcd3:
                  hosts: 127.0.0.1:%3$d
                bootstrap:
                  dcs:
                    ttl: %6$d
                    loop_wait: 1
                    retry_timeout: 4
                    maximum_lag_on_failover: 1048576
                    synchronous_mode: true
                    postgresql:
                      use_pg_rewind: true
                      parameters:
                        wal_log_hints: "on"
                        max_wal_senders: 5
                        max_replication_slots: 5
                  initdb:
                    - encoding: UTF8
                    - auth: trust
                  pg_hba:
                    - local all all trust
                    - host all all 127.0.0.1/32 trust
                    - host replication all 127.0.0.1/32 trust
                postgresql:
                  listen: 127.0.0.1:%4$d
                  connect_address: 127.0.0.1:%4$d
                  data_dir: %5$s
                  bin_dir: %7$s
                  pgpass: %5$s.pgpass
                  authentication:
                    superuser:
                      username: postgres
                    replication:
                      username: postgres
                  parameters:
                    unix_socket_directories: %8$s
                """.formatted(n.name, n.apiPort, etcdPort, n.pgPort, n.data(), TTL_SECONDS, PG_BIN, dir);
    }

    /** Starts (or starts again) the node's Patroni, which starts its PostgreSQL as primary or standby. */
    public void start(int node) throws IOException {
        nodes[node].patroni = start(nodes[node].name, List.of("patroni", nodes[node].config().toString()));
    }

    /**
     * The loss of the node's host: its Patroni and its PostgreSQL are killed at once, with no
     * chance to clean up. Returns the {@link System#nanoTime} the signals went out at (waiting
     * for the processes to be gone comes after).
     */
    public long kill(int node) {
        Node n = nodes[node];
        if (n.patroni == null) {
            return System.nanoTime(); // down already
        }
        Path pid = n.data().resolve("postmaster.pid");
        List<ProcessHandle> all = new ArrayList<>(n.patroni.descendants().toList());
        all.add(n.patroni.toHandle());
        try {
            // PostgreSQL's postmaster is no child of Patroni's once started: it is found by its pid file
            ProcessHandle.of(Long.parseLong(Files.readAllLines(pid).get(0).trim())).ifPresent(all::add);
        } catch (IOException | RuntimeException noPostmaster) {
            // not running
        }
        all.forEach(ProcessHandle::destroyForcibly);
        long at = System.nanoTime();
        n.patroni = null;
        awaitGone(all);
        return at;
    }

    /** SIGKILL to a process started here and all it started (as root, the program is runuser's child). */
    private static void killTree(Process p) {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.add(p.toHandle());
        all.forEach(ProcessHandle::destroyForcibly);
        awaitGone(all);
    }

    private static void awaitGone(List<ProcessHandle> processes) {
        for (ProcessHandle h : processes) {
            h.onExit().completeOnTimeout(h, 10, TimeUnit.SECONDS).join();
        }
    }

    /** The node Patroni has as the leader (the primary), or -1 when none is. */
    public int primary() {
        for (int i = 0; i < nodes.length; i++) {
            if (get("http://127.0.0.1:" + nodes[i].apiPort + "/primary") == 200) {
                return i;
            }
        }
        return -1;
    }

    public void awaitPrimary(int node, Duration within) throws Exception {
        await(nodes[node].name + " leads", within, () -> get("http://127.0.0.1:" + nodes[node].apiPort + "/primary")
                == 200);
    }

    public void awaitSynchronousStandby(int node, Duration within) throws Exception {
        await(nodes[node].name + " is the synchronous standby", within,
                () -> get("http://127.0.0.1:" + nodes[node].apiPort + "/sync") == 200);
    }

    /** The multi-host JDBC URL of a database, for whichever node is primary. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + nodes[0].pgPort + ",127.0.0.1:" + nodes[1].pgPort + "/" + database
                + "?targetServerType=primary";
    }

    /** Creates a database on the primary (it reaches the standby by replication). */
    public void createDatabase(String name) throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
    }

    private int get(String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private void await(String what, Duration within, Check check) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the replicated PostgreSQL: not within " + within + ": " + what
                        + "; see the logs in " + dir);
            }
            Thread.sleep(200);
        }
    }

    private Process start(String name, List<String> command) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (asPostgres) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.addAll(command);
        return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".log").toFile())).start();
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + ": " + out);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Kills everything it started and removes its directory. */
    @Override
    public void close() throws Exception {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null && nodes[i].patroni != null) {
                kill(i);
            }
        }
        if (etcd != null) {
            killTree(etcd);
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
