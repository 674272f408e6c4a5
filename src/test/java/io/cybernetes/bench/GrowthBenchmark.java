package io.cybernetes.bench;

import io.cybernetes.CybernetesApplication;
import io.cybernetes.api.Json;
import io.cybernetes.bench.Load.Result;
import io.cybernetes.apiserver.ApiServerEndpoints;
import io.cybernetes.store.Store;
import io.cybernetes.store.StoredObject;
import io.cybernetes.store.internal.SqlStore;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import javax.net.ssl.SSLContext;
import javax.sql.DataSource;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/**
 * How the cost grows with the cluster ({@code -Pbench -Dbench.only=growth}): pods are
 * added through the API up to each of {@code bench.growthSizes} (1,000, 10,000, 50,000 and
 * 150,000), on a node for every 30 pods (5,000 at the top), and at each size the phase
 * measures heap after a full GC and per object, database bytes per object, five kinds of
 * LIST of every pod, the create rate and p99 against the empty cluster's, a relist by 50
 * informers at once (time and peak heap), the compaction of 100,000 superseded revisions
 * (its time and the write p99 meanwhile), a cold start: a new process on the same
 * database, timed from its launch to {@code /readyz} answering ok, and watch delivery's p99
 * with as many watchers as the watch phase.
 *
 * <p>The nodes have no kubelets (as KWOK's): the pods arrive bound to them ({@code
 * spec.nodeName}) and stay Pending, and the node-lifecycle controller is left out so that
 * nodes nobody heartbeats are not tainted and their pods evicted. Everything else runs as
 * configured by default: authentication, RBAC and admission, the controllers and the
 * scheduler in the process.
 */
final class GrowthBenchmark {

    private static final int CLIENTS = 16;
    private static final int PODS_PER_NODE = 30;
    private static final int NAMESPACES = 100;
    private static final int PROBES = 3_000;
    private static final int SUPERSEDED = 100_000;
    private static final int INFORMERS = 50;
    private static final int WATCH_SECONDS = 10;

    private final List<String> props;
    private final Path data;
    private final String benchToken;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private ConfigurableApplicationContext ctx;
    private SSLContext ssl;
    private int port;
    private String adminToken;
    private HttpClient http;
    private final ThreadLocal<KeepAliveClient> clients = new ThreadLocal<>();
    private final List<KeepAliveClient> opened = new java.util.concurrent.CopyOnWriteArrayList<>();

    private long pods;
    private long nodes;
    private long probeSeq;

    GrowthBenchmark(List<String> props, Path data, String benchToken) {
        this.props = props;
        this.data = data;
        this.benchToken = benchToken;
    }

    /** One row of the table. */
    private record Row(long pods, long nodes, double heapMiB, double heapPerObject, double dbPerObject, double listJson,
                       double listTable, double listRv0, double listPaged, double listSelected, double createRate,
                       double createP99, double relistSeconds, double relistPeakMiB, double compactionSeconds,
                       double writeP99Before, double writeP99During, double coldStart, long listBytes,
                       double watchP99) {
    }

    void run() throws Exception {
        List<Long> sizes = Arrays.stream(System.getProperty("bench.growthSizes", "1000,10000,50000,150000").split(","))
                .map(String::trim).map(Long::parseLong).toList();
        start();
        setUp();
        createProbes(); // warm-up: the empty cluster's figures are not the JIT's
        // as the watch phase: its first rounds are compiled while they run
        JitWarmUp.run("watch warm-up", 3, r -> String.format(Locale.ROOT, "p99 %.2f ms", watchProbe(5)));
        double emptyWatch = watchProbe(WATCH_SECONDS);
        // after the watch probes, whose events the watch cache keeps: the first size's heap per object is the pods'
        double heap0 = heapAfterGc();
        long objects0 = storedObjects();
        Result empty = createProbes();
        System.out.printf(Locale.ROOT, "empty cluster: heap %.0f MiB after GC, %,d objects; %,d pod creates at %,.0f/s,"
                + " p99 %.1f ms; watch delivery p99 %.1f ms%n", heap0, objects0, PROBES, empty.rate(), empty.p99(),
                emptyWatch);
        List<Row> rows = new ArrayList<>();
        double heapBefore = heap0;
        long objectsBefore = objects0;
        for (long size : sizes) {
            long t0 = System.nanoTime();
            fill(size);
            System.out.printf(Locale.ROOT, "%,d pods on %,d nodes written in %.1f s%n", pods, nodes,
                    (System.nanoTime() - t0) / 1e9);
            double heap = heapAfterGc();
            long objects = storedObjects();
            // per object added since the last size: what the next 100,000 pods will cost
            double perObject = (heap - heapBefore) * 1048576 / Math.max(1, objects - objectsBefore);
            heapBefore = heap;
            objectsBefore = objects;
            double dbPerObject = (double) databaseBytes() / objects;
            long[] bytes = new long[1];
            double json = listSeconds("/api/v1/pods", "application/json", bytes);
            double table = listSeconds("/api/v1/pods", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
                    null);
            double rv0 = listSeconds("/api/v1/pods?resourceVersion=0", "application/json", null);
            double paged = pagedListSeconds();
            double selected = listSeconds("/api/v1/pods?labelSelector=batch%3Db7", "application/json", null);
            Result creates = createProbes();
            double watch = watchProbe(WATCH_SECONDS);
            double[] relist = relist();
            double[] compaction = compaction();
            double cold = coldStart();
            Row row = new Row(pods, nodes, heap, perObject, dbPerObject, json, table, rv0, paged, selected,
                    creates.rate(), creates.p99(), relist[0], relist[1], compaction[0], compaction[1], compaction[2], cold,
                    bytes[0], watch);
            rows.add(row);
            printRow(row, empty);
        }
        System.out.println();
        System.out.println("| pods | nodes | heap after GC | heap per added object | database per object | LIST JSON"
                + " | LIST Table | LIST rv=0 | paged LIST (500) | selected LIST (100) | creates/s (× empty) | create p99"
                + " | 50 informers relist | their peak heap | compact 100,000 | write p99 before / during"
                + " | cold start | watch delivery p99 |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "| %,d | %,d | %,.0f MiB | %,.0f B | %,.0f B | %.2f s | %.2f s | %.2f s"
                            + " | %.2f s | %.1f ms | %,.0f (%.2f) | %.1f ms | %.1f s | %,.0f MiB | %.2f s"
                            + " | %.1f / %.1f ms | %.1f s | %.1f ms |%n",
                    r.pods, r.nodes, r.heapMiB, r.heapPerObject, r.dbPerObject, r.listJson, r.listTable, r.listRv0,
                    r.listPaged, r.listSelected * 1000, r.createRate, r.createRate / empty.rate(), r.createP99,
                    r.relistSeconds, r.relistPeakMiB, r.compactionSeconds, r.writeP99Before, r.writeP99During,
                    r.coldStart, r.watchP99);
        }
        System.out.printf(Locale.ROOT, "(empty cluster: %,.0f creates/s, p99 %.1f ms; heap %.0f MiB; watch delivery p99"
                + " %.1f ms)%n", empty.rate(), empty.p99(), heap0, emptyWatch);
        stop();
    }

    private static void printRow(Row r, Result empty) {
        System.out.printf(Locale.ROOT, "  heap %,.0f MiB after GC (%,.0f B per object added), database %,.0f B/object%n",
                r.heapMiB, r.heapPerObject, r.dbPerObject);
        System.out.printf(Locale.ROOT, "  LIST all pods: JSON %.2f s (%,d MiB), Table %.2f s, resourceVersion=0 %.2f s,"
                        + " paged by 500 %.2f s, selected 100 %.1f ms%n", r.listJson, r.listBytes >> 20, r.listTable,
                r.listRv0, r.listPaged, r.listSelected * 1000);
        System.out.printf(Locale.ROOT, "  creates %,.0f/s (%.2f of empty), p99 %.1f ms; 50 informers relist in %.1f s,"
                        + " peak heap %,.0f MiB%n", r.createRate, r.createRate / empty.rate(), r.createP99, r.relistSeconds,
                r.relistPeakMiB);
        System.out.printf(Locale.ROOT, "  compaction of %,d superseded revisions %.2f s, write p99 %.1f ms before,"
                + " %.1f ms during; cold start %.1f s; watch delivery p99 %.1f ms%n", SUPERSEDED, r.compactionSeconds,
                r.writeP99Before, r.writeP99During, r.coldStart, r.watchP99);
    }

    // ---- the server

    private void start() throws Exception {
        ctx = new SpringApplicationBuilder(CybernetesApplication.class).run(props.toArray(String[]::new));
        ApiServerEndpoints endpoints = ctx.getBean(ApiServerEndpoints.class);
        Path pki = endpoints.adminKubeconfig().getParent().resolve("pki");
        adminToken = Files.readString(pki.resolve("admin.token")).trim();
        port = endpoints.httpsPort();
        ssl = Benchmark.trustingClusterCa(pki);
        http = HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1).build();
    }

    private void stop() throws Exception {
        for (KeepAliveClient c : opened) {
            c.close();
        }
        opened.clear();

        ctx.close();
    }

    private void setUp() throws Exception {
        send("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "{\"metadata\":{\"name\":\"benchers\"},"
                + "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"edit\"},"
                + "\"subjects\":[{\"kind\":\"Group\",\"name\":\"benchers\",\"apiGroup\":\"rbac.authorization.k8s.io\"}]}");
        for (int n = 0; n < NAMESPACES; n++) {
            send("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"growth-" + n + "\"}}");
        }
        send("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"growth-probe\"}}");
        // pods need their namespace's default ServiceAccount (admission), which a controller makes
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (send("GET", "/api/v1/namespaces/growth-probe/serviceaccounts/default", null).statusCode() != 200
                || send("GET", "/api/v1/namespaces/growth-" + (NAMESPACES - 1) + "/serviceaccounts/default", null)
                .statusCode() != 200) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the namespaces' ServiceAccounts were never made");
            }
            Thread.sleep(100);
        }
        while (create("/api/v1/namespaces/growth-probe/configmaps", "{\"metadata\":{\"name\":\"rbac-check\"}}")
                != 201) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the bench user's ClusterRoleBinding never took effect");
            }
            Thread.sleep(50);
        }
    }

    /** Nodes, then pods bound to them, until {@code size} pods are stored. */
    private void fill(long size) throws Exception {
        long wantNodes = Math.max(1, (size + PODS_PER_NODE - 1) / PODS_PER_NODE);
        long firstNode = nodes;
        measure(i -> firstNode + i <= wantNodes, i -> expect(send("POST", "/api/v1/nodes", node(firstNode + i - 1)),
                201, "node"));
        nodes = wantNodes;
        long first = pods;
        measure(i -> first + i <= size, i -> {
            long n = first + i - 1;
            expect(create("/api/v1/namespaces/growth-" + (n % NAMESPACES) + "/pods", pod("p" + n, n / PODS_PER_NODE)),
                    201, "pod");
        });
        pods = size;
    }

    private static String node(long n) {
        return "{\"metadata\":{\"name\":\"node-" + n + "\",\"labels\":{\"kubernetes.io/hostname\":\"node-" + n
                + "\",\"topology.kubernetes.io/zone\":\"zone-" + (n % 3) + "\"}},\"status\":{\"capacity\":"
                + "{\"cpu\":\"32\",\"memory\":\"256Gi\",\"pods\":\"110\"},\"allocatable\":{\"cpu\":\"32\",\"memory\":"
                + "\"256Gi\",\"pods\":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}";
    }

    /** A pod as workloads make them: labels, one container with requests, bound to a node. */
    private static String pod(String name, long node) {
        return "{\"metadata\":{\"name\":\"" + name + "\",\"labels\":{\"app\":\"growth\",\"tier\":\"web\",\"batch\":\"b"
                + (Long.parseLong(name.replaceAll("\\D", "")) / 100) + "\"}},\"spec\":{\"nodeName\":\"node-" + node
                + "\",\"containers\":[{\"name\":\"web\",\"image\":\"registry.example.com/web:1.27\",\"ports\":"
                + "[{\"containerPort\":8080}],\"env\":[{\"name\":\"MODE\",\"value\":\"production\"}],\"resources\":"
                + "{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}}]}}";
    }

    private static void expect(HttpResponse<String> r, int status, String what) {
        if (r.statusCode() != status) {
            throw new IllegalStateException(what + ": " + r.statusCode() + " " + r.body());
        }
    }

    private static void expect(int status, int want, String what) {
        if (status != want) {
            throw new IllegalStateException(what + ": " + status);
        }
    }

    // ---- measurements

    private double heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            memory.gc();
            Thread.sleep(200);
        }
        return memory.getHeapMemoryUsage().getUsed() / 1048576.0;
    }

    private long storedObjects() {
        return ctx.getBean(Store.class).count("");
    }

    private long databaseBytes() throws Exception {
        try (Connection c = ctx.getBean(DataSource.class).getConnection(); Statement s = c.createStatement()) {
            if (c.getMetaData().getDatabaseProductName().contains("PostgreSQL")) {
                try (ResultSet rs = s.executeQuery("SELECT pg_database_size(current_database())")) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
        try (var files = Files.list(data)) {
            return files.filter(p -> p.getFileName().toString().startsWith("db.")).mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    /** The median of three LISTs, in seconds; the body is read and dropped as it arrives. */
    private double listSeconds(String path, String accept, long[] bytes) throws Exception {
        double[] t = new double[3];
        for (int i = 0; i < t.length; i++) {
            long t0 = System.nanoTime();
            long n = drain(path, accept);
            t[i] = (System.nanoTime() - t0) / 1e9;
            if (bytes != null) {
                bytes[0] = n;
            }
        }
        Arrays.sort(t);
        return t[1];
    }

    private long drain(String path, String accept) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + adminToken).header("Accept", accept)
                .timeout(Duration.ofMinutes(5)).build();
        HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        long n = 0;
        try (InputStream in = r.body()) {
            byte[] buf = new byte[1 << 16];
            for (int k; (k = in.read(buf)) >= 0; ) {
                n += k;
            }
        }
        if (r.statusCode() != 200) {
            throw new IllegalStateException("LIST " + path + ": " + r.statusCode());
        }
        return n;
    }

    /** A LIST of every pod 500 at a time, following continue tokens to the end (as client-go's pager). */
    private double pagedListSeconds() throws Exception {
        long t0 = System.nanoTime();
        String next = "";
        long items = 0;
        do {
            HttpResponse<String> r = send("GET", "/api/v1/pods?limit=500"
                    + (next.isEmpty() ? "" : "&continue=" + java.net.URLEncoder.encode(next,
                    java.nio.charset.StandardCharsets.UTF_8)), null);
            expect(r, 200, "paged LIST");
            JsonNode page = Json.MAPPER.readTree(r.body());
            items += page.path("items").size();
            next = page.path("metadata").path("continue").asString("");
        } while (!next.isEmpty());
        if (items < pods) {
            throw new IllegalStateException("the paged LIST gave " + items + " of " + pods + " pods");
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** {@link #PROBES} pods created in growth-probe by the clients (timed), then deleted (not timed). */
    private Result createProbes() throws Exception {
        long base = probeSeq;
        probeSeq += PROBES;
        Result r = measure(i -> i <= PROBES, i -> expect(create("/api/v1/namespaces/growth-probe/pods",
                pod("probe" + (base + i), (base + i) % Math.max(1, nodes))), 201, "probe pod"));
        expect(send("DELETE", "/api/v1/namespaces/growth-probe/pods?gracePeriodSeconds=0", null), 200,
                "probe deletion");
        return r;
    }

    /**
     * Watch delivery at this size: {@code bench.watchers} watches of growth-probe's ConfigMaps (500 unless set, as in
     * the watch phase), {@code bench.rate} ConfigMaps a second (200 unless set) written by the bench user for {@code seconds}, each
     * carrying its send time; the p99 of send to arrival over every event at every watcher, in ms. The ConfigMaps are
     * deleted afterwards (not timed).
     */
    private double watchProbe(int seconds) throws Exception {
        int watchers = Integer.getInteger("bench.watchers", 500);
        int rate = Integer.getInteger("bench.rate", 200);
        String path = "/api/v1/namespaces/growth-probe/configmaps";
        String rv = Json.MAPPER.readTree(send("GET", path, null).body()).at("/metadata/resourceVersion").asString();
        WatchDelivery.Result r = WatchDelivery.run(watchers, rate, seconds,
                WatchDelivery.http11(ssl.getSocketFactory(), port, path + "?watch=true&resourceVersion=" + rv,
                        benchToken), WatchDelivery.sentField(),
                (n, sent) -> expect(create(path, "{\"metadata\":{\"name\":\"watch-" + n + "-" + sent + "\",\"labels\":"
                        + "{\"watch-probe\":\"true\"}},\"data\":{\"sent\":\"" + sent + "\"}}"), 201, "watched ConfigMap"),
                true);
        r.print("  watch delivery", watchers, rate, seconds);
        expect(send("DELETE", path + "?labelSelector=watch-probe%3Dtrue", null), 200, "watched ConfigMaps' deletion");
        return r.p99();
    }

    /** 50 clients LIST every pod from the cache at once (resourceVersion=0, as informers start): seconds, peak MiB. */
    private double[] relist() throws Exception {
        heapAfterGc();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong peak = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (running.get()) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sampler.start();
        ExecutorService pool = Executors.newFixedThreadPool(INFORMERS);
        long t0 = System.nanoTime();
        List<Future<Long>> lists = new ArrayList<>();
        for (int i = 0; i < INFORMERS; i++) {
            lists.add(pool.submit(() -> drain("/api/v1/pods?resourceVersion=0", "application/json")));
        }
        for (Future<Long> f : lists) {
            f.get();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        running.set(false);
        sampler.join();
        pool.shutdown();
        return new double[] {seconds, peak.get() / 1048576.0};
    }

    /**
     * 100,000 revisions superseded (1,000 objects updated 100 times each, through the store),
     * then compacted while the clients create ConfigMaps: compaction seconds, and the creates'
     * p99 in the 5 s before and while it runs.
     */
    private double[] compaction() throws Exception {
        Store store = ctx.getBean(Store.class);
        long round = probeSeq++;
        int keys = 1_000;
        List<StoredObject> current = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            current.add(store.create("growth/churn/" + round + "/" + k, churn(k, 0)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> updates = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            int key = k;
            updates.add(pool.submit(() -> {
                StoredObject o = current.get(key);
                for (int u = 1; u <= SUPERSEDED / keys; u++) {
                    o = store.update(o.key(), churn(key, u), o.modRevision(), null);
                }
                return store.delete(o.key(), o.modRevision(), null);
            }));
        }
        for (Future<?> f : updates) {
            f.get();
        }
        pool.shutdown();
        // every superseded revision must be older than the compaction window (one second in this phase)
        Thread.sleep(1_500);
        String path = "/api/v1/namespaces/growth-probe/configmaps";
        String body = "{\"metadata\":{\"generateName\":\"w-\"},\"data\":{\"payload\":\"" + "x".repeat(900) + "\"}}";
        Result before = measure(deadline(5), i -> expect(create(path, body), 201, "configmap"));
        SqlStore sql = ctx.getBean(SqlStore.class);
        long[] compactNanos = new long[1];
        AtomicBoolean compacting = new AtomicBoolean(true);
        Thread compactor = new Thread(() -> {
            long t0 = System.nanoTime();
            try {
                sql.compact();
            } finally {
                compactNanos[0] = System.nanoTime() - t0;
                compacting.set(false);
            }
        });
        compactor.start();
        Result during = measure(i -> compacting.get(), i -> expect(create(path, body), 201, "configmap"));
        compactor.join();
        expect(send("DELETE", path, null), 200, "configmap deletion");
        return new double[] {compactNanos[0] / 1e9, before.p99(), during.p99()};
    }

    private static ObjectNode churn(int key, int version) {
        ObjectNode o = Json.object();
        o.put("apiVersion", "v1").put("kind", "ConfigMap");
        o.putObject("metadata").put("name", "churn-" + key).put("namespace", "growth-churn");
        o.putObject("data").put("version", Integer.toString(version)).put("payload", "x".repeat(900));
        return o;
    }

    private static LongPredicate deadline(int seconds) {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        return i -> System.nanoTime() < end;
    }

    /**
     * The store's process stopped, a new one started on the same database (the same JVM
     * options and classpath): seconds from its launch until {@code /readyz} answers ok.
     * This process's server then starts again for the next size.
     */
    private double coldStart() throws Exception {
        stop();
        int httpPort;
        try (ServerSocket s = new ServerSocket(0)) {
            httpPort = s.getLocalPort();
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-X") && !a.contains("FlightRecord")).toList());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CybernetesApplication.class.getName());
        for (String p : props) {
            cmd.add(p.startsWith("--server.port=") ? "--server.port=" + httpPort : p);
        }
        HttpClient plain = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
                .timeout(Duration.ofSeconds(5)).build();
        long t0 = System.nanoTime();
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(data.resolve("cold-start.log").toFile()).start();
        double seconds = -1;
        try {
            while (System.nanoTime() - t0 < 600_000_000_000L && child.isAlive()) {
                try {
                    HttpResponse<String> r = plain.send(ready, HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200 && r.body().equals("ok")) {
                        seconds = (System.nanoTime() - t0) / 1e9;
                        break;
                    }
                } catch (java.io.IOException e) {
                    // not listening yet
                }
                Thread.sleep(50);
            }
        } finally {
            child.destroy();
            child.waitFor();

        }
        if (seconds < 0) {
            throw new IllegalStateException("the new process never became ready; see " + data.resolve("cold-start.log"));
        }
        start();
        return seconds;
    }

    // ---- load

    private static Result measure(LongPredicate more, Load.Op op) throws Exception {
        return Load.run(CLIENTS, more, op);
    }

    /** A create as the bench user over this thread's kept-alive connection: the status. */
    private int create(String path, String body) throws Exception {
        KeepAliveClient c = clients.get();
        if (c == null || c.port() != port) {
            c = new KeepAliveClient(ssl, port, benchToken);
            clients.set(c);
            opened.add(c);
        }
        KeepAliveClient.Response r = c.send("POST", path, body);
        if (r.status() != 201) {
            System.out.println("create " + path + ": " + r.status() + " " + r.body());
        }
        return r.status();
    }

    /** A request as the cluster admin. */
    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + adminToken).header("Content-Type", "application/json")
                .header("Accept", "application/json").timeout(Duration.ofMinutes(5));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
