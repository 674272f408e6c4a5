package io.cybernetes.bench;

import io.cybernetes.CybernetesApplication;
import io.cybernetes.api.Json;
import io.cybernetes.bench.Load.Result;
import io.cybernetes.apiserver.ApiServerEndpoints;
import io.cybernetes.auth.Authorizer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import io.cybernetes.store.Store;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.sql.DataSource;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures the figures in {@code docs/benchmarks.md}: creates per second and latency
 * through the API (16 HTTPS clients) and through the store alone, next to raw JDBC
 * inserts of the same rows at the same concurrency and durability; watch delivery
 * latency with 500 watchers while writing 200 objects/s; a LIST of 10,000 pods; and
 * authorization decisions with 1,000 Roles and 5,000 RoleBindings. API loads run as an
 * ordinary user (group {@code benchers}, edit in the namespace), so RBAC, admission and
 * admission are on the path; {@code -Dbench.security=off} starts the server with
 * AlwaysAllow and no admission plugins, for the comparison. The audit log is off unless
 * {@code -Dbench.audit=on}.
 *
 * <p>Run: {@code ./mvnw -q -Pbench verify -Dbench.db=h2} (or {@code postgres}, with
 * {@code CYBERNETES_BENCH_POSTGRES_URL} pointing at a server; the database
 * {@code cybernetes_bench} is recreated). The server and the load run in one JVM on
 * this machine's two cores.
 */
public final class Benchmark {

    private static final int CLIENTS = 16;
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("bench.seconds", 10));
    private static final String PAYLOAD = "x".repeat(1024 - 100);
    private static final String BENCH_TOKEN = "bench-user-token";
    private static final String FLOOD_TOKEN = "flood-user-token";

    private final Store store;
    private final DataSource dataSource;
    private final HttpClient http;
    private final String base;
    private final String token;
    private final Authorizer authorizer;
    private final SSLContext sslContext;
    private final int port;
    private final int httpPort;

    private Benchmark(ConfigurableApplicationContext ctx) throws Exception {
        this.store = ctx.getBean(Store.class);
        this.dataSource = ctx.getBean(DataSource.class);
        ApiServerEndpoints endpoints = ctx.getBean(ApiServerEndpoints.class);
        Path pki = endpoints.adminKubeconfig().getParent().resolve("pki");
        this.token = Files.readString(pki.resolve("admin.token")).trim();
        this.authorizer = ctx.getBean(Authorizer.class);
        SSLContext ssl = trustingClusterCa(pki);
        this.http = HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newCachedThreadPool()).build();
        this.base = "https://127.0.0.1:" + endpoints.httpsPort();
        this.sslContext = ssl;
        this.port = endpoints.httpsPort();
        this.httpPort = endpoints.httpPort();
    }

    public static void main(String[] args) throws Exception {
        var runtime = java.lang.management.ManagementFactory.getRuntimeMXBean();
        System.out.printf(Locale.ROOT, "machine: %d cores, max heap %,d MiB, collectors %s, JVM %s, options %s%n",
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream().map(g -> g.getName())
                        .toList(), runtime.getVmVersion(),
                runtime.getInputArguments().stream().filter(a -> a.startsWith("-X")).toList());
        if ("failover".equals(System.getProperty("bench.only"))) {
            io.cybernetes.store.internal.FailoverBenchmark.run();
            System.exit(0);
        }
        String db = System.getProperty("bench.db", args.length > 0 ? args[0] : "h2");
        Path data = Path.of("target", "bench", db + "-" + System.currentTimeMillis()).toAbsolutePath();
        List<String> props = new ArrayList<>(List.of("--server.port=0", "--cybernetes.apiserver.https-port=0",
                "--cybernetes.apiserver.https-address=127.0.0.1", "--cybernetes.auth.data-dir=" + data,
                "--logging.level.root=WARN", "--spring.main.banner-mode=off",
                // the controller benchmark binds and runs pods with its own stand-in kubelet; the
                // scheduler benchmark has the scheduler alone (as scheduler_perf), its nodes no kubelets
                "--cybernetes.scheduler.enabled=" + List.of("scheduler", "stateful", "growth")
                        .contains(System.getProperty("bench.only")),
                "--cybernetes.controllers.enabled=" + !"scheduler".equals(System.getProperty("bench.only")),
                "--cybernetes.nodes.count=" + ("streams".equals(System.getProperty("bench.only")) ? 1 : 0)));
        Files.createDirectories(data);
        Files.writeString(data.resolve("tokens.csv"), BENCH_TOKEN + ",bench,bench,\"benchers\"\n"
                + FLOOD_TOKEN + ",flooder,flooder,\"flooders\"\n");
        props.add("--cybernetes.auth.token-file=" + data.resolve("tokens.csv"));
        if ("off".equals(System.getProperty("bench.security"))) {
            props.addAll(List.of("--cybernetes.auth.authorization-mode=AlwaysAllow", "--cybernetes.admission.plugins="));
        }
        if (!"on".equals(System.getProperty("bench.audit"))) {
            props.add("--cybernetes.audit.enabled=false");
        }
        for (String extra : System.getProperty("bench.serverArgs", "").split(",")) {
            if (!extra.isBlank()) {
                props.add("--" + extra.trim());
            }
        }
        if (db.equals("postgres")) {
            String url = System.getenv().getOrDefault("CYBERNETES_BENCH_POSTGRES_URL",
                    "jdbc:postgresql://127.0.0.1:5432/cybernetes_bench");
            recreatePostgres(url);
            props.add("--spring.datasource.url=" + url);
            props.add("--spring.datasource.username=" + System.getenv().getOrDefault("CYBERNETES_BENCH_POSTGRES_USER",
                    "postgres"));
            props.add("--spring.datasource.password=");
        } else {
            props.add("--spring.datasource.url=jdbc:h2:retry:" + data.resolve("db") + ";WRITE_DELAY=0;QUERY_CACHE_SIZE=64");
        }
        if ("growth".equals(System.getProperty("bench.only"))) {
            // nodes without kubelets stay Ready only when nobody watches their leases; compaction when the phase says
            props.addAll(List.of("--cybernetes.controllers.controllers=*,-node-lifecycle",
                    "--cybernetes.store.compaction-window=1s", "--cybernetes.store.compaction-interval=1h"));
            new GrowthBenchmark(props, data, BENCH_TOKEN).run();
        } else {
            runPhase(props, db);
        }
        // a run leaves gigabytes of database behind: gone unless asked to keep it
        if (!Boolean.getBoolean("bench.keep")) {
            try (var files = Files.walk(data)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.exit(0);
    }

    private static void runPhase(List<String> props, String db) throws Exception {
        try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(CybernetesApplication.class)
                .run(props.toArray(String[]::new))) {
            Path pki = ctx.getBean(ApiServerEndpoints.class).adminKubeconfig().getParent().resolve("pki");
            String adminToken = Files.readString(pki.resolve("admin.token")).trim();
            if ("controllers".equals(System.getProperty("bench.only"))) {
                new ControllerBenchmark(ctx, adminToken).run();
            } else if ("scheduler".equals(System.getProperty("bench.only"))) {
                new SchedulerBenchmark(ctx, adminToken).run();
            } else if ("dashboard".equals(System.getProperty("bench.only"))) {
                new DashboardBenchmark(ctx, adminToken).run();
            } else if ("nodes".equals(System.getProperty("bench.only"))) {
                new NodeAgentBenchmark(ctx, adminToken, pki).run();
            } else if ("streams".equals(System.getProperty("bench.only"))) {
                new StreamsBenchmark(ctx, adminToken, pki).run();
            } else if ("stateful".equals(System.getProperty("bench.only"))) {
                new StatefulBenchmark(ctx, adminToken, pki).run();
            } else if ("http2".equals(System.getProperty("bench.only"))) {
                new ProtocolBenchmark(ctx, adminToken, pki).run();
            } else if ("workloads".equals(System.getProperty("bench.only"))) {
                new WorkloadsBenchmark(ctx, adminToken).run();
            } else {
                new Benchmark(ctx).run(db);
            }
        }
    }

    /** TLS trusting the cluster CA of the server's data directory ({@code pki/ca.crt}). */
    static SSLContext trustingClusterCa(Path pki) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(pki.resolve("ca.crt"))) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }

    private static void recreatePostgres(String url) throws Exception {
        String admin = url.substring(0, url.lastIndexOf('/') + 1) + "postgres";
        String name = url.substring(url.lastIndexOf('/') + 1);
        try (Connection c = DriverManager.getConnection(admin, "postgres", ""); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
            s.execute("CREATE DATABASE " + name);
        }
    }

    private void run(String db) throws Exception {
        System.out.printf(Locale.ROOT, "Cybernetes benchmark on %s, %d clients, %ds per run, %d cores%n", db, CLIENTS,
                RUN.toSeconds(), Runtime.getRuntime().availableProcessors());
        for (String ns : BENCH_NAMESPACES) {
            http("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\"}}");
        }
        System.out.println("authorization and admission: " + System.getProperty("bench.security", "on") + "; audit log: "
                + System.getProperty("bench.audit", "off"));
        grantBenchUser();
        if ("authz".equals(System.getProperty("bench.only"))) {
            authorizationDecisions();
            return;
        }

        if ("watch".equals(System.getProperty("bench.only"))) {
            watchLatency();
            return;
        }
        if ("crd".equals(System.getProperty("bench.only"))) {
            customResources();
            return;
        }
        if ("apply".equals(System.getProperty("bench.only"))) {
            applyVersusUpdate();
            return;
        }
        if ("etcd".equals(System.getProperty("bench.only"))) {
            etcdSideBySide(db);
            return;
        }
        if ("guardrails".equals(System.getProperty("bench.only"))) {
            guardRails();
            return;
        }
        if ("fairness".equals(System.getProperty("bench.only"))) {
            fairness();
            return;
        }
        if ("api".equals(System.getProperty("bench.only"))) {
            warmUntilCompiled();
            Result api = apiCreates();
            MachineProbe.print("after");
            api.print("API create over HTTPS (1 KiB ConfigMap)");
            return;
        }
        Result raw = rawInserts(false);
        Result rawCounter = rawInserts(true);
        Result storeAlone = load("store", i -> store.create("bench/store/" + i, configMap("s" + i)));
        warmUntilCompiled();
        Result api = apiCreates();

        System.out.println();
        System.out.println(Load.HEADER);
        System.out.println(Load.RULE);
        raw.print("raw JDBC insert, one transaction each");
        rawCounter.print("raw JDBC insert + shared counter row update, one transaction each");
        storeAlone.print("store create (group commit), no HTTP");
        api.print("API create over HTTPS (1 KiB ConfigMap)");
        System.out.printf(Locale.ROOT, "%nstore / raw insert = %.2f; API / raw insert = %.2f%n",
                storeAlone.rate() / raw.rate(), api.rate() / raw.rate());
        if ("store".equals(System.getProperty("bench.only"))) {
            return;
        }

        watchLatency();
        listPods();
    }

    // ---- etcd side by side

    /**
     * etcd (one member, then three) driven as kube-apiserver drives it, next to raw JDBC
     * inserts, the store alone and API creates, the same 16 clients and 1 KiB values in one
     * run; then watch delivery for the same load from etcd's watch and from ours.
     */
    private void etcdSideBySide(String db) throws Exception {
        if (!EtcdBaseline.installed()) {
            throw new IllegalStateException("etcd is not installed (apt-get install etcd-server)");
        }
        Path dir = Files.createTempDirectory("bench-etcd");
        String value = Json.write(configMap("etcd"));
        Result raw = rawInserts(false);
        Result storeAlone = load("store", i -> store.create("bench/store/" + i, configMap("s" + i)));
        warmUntilCompiled();
        Result api = load("api", i -> create("/api/v1/namespaces/bench/configmaps", configMap("c" + i)));
        Result[] etcd = new Result[2];
        WatchDelivery.Result etcdWatch;
        int watchers = Integer.getInteger("bench.watchers", 500);
        int rate = Integer.getInteger("bench.rate", 200);
        try (EtcdBaseline one = EtcdBaseline.start(1, dir.resolve("one"))) {
            load("etcd warm-up", Duration.ofSeconds(3), i -> one.create("/registry/configmaps/warm/" + i, value));
            etcd[0] = load("etcd", i -> one.create("/registry/configmaps/bench/" + i, value));
            String payload = PAYLOAD.substring(0, 900);
            etcdWatch = WatchDelivery.run(watchers, rate, (int) RUN.toSeconds(),
                    n -> one.watch("/registry/configmaps/watch/", n), WatchDelivery.base64Values(),
                    (n, sent) -> one.create("/registry/configmaps/watch/" + n, "{\"data\":{\"sent\":\"" + sent
                            + "\",\"payload\":\"" + payload + "\"}}"), true);
        }
        try (EtcdBaseline three = EtcdBaseline.start(3, dir.resolve("three"))) {
            load("etcd warm-up", Duration.ofSeconds(3), i -> three.create("/registry/configmaps/warm/" + i, value));
            etcd[1] = load("etcd", i -> three.create("/registry/configmaps/bench/" + i, value));
        }
        WatchDelivery.Result ours = watchLatency();
        etcdWatch.print("etcd watch delivery (its HTTP gateway, one member)", watchers, rate, (int) RUN.toSeconds());
        System.out.println();
        System.out.printf(Locale.ROOT, "%d clients, 1 KiB values, %ds per run, %s%n%n", CLIENTS, RUN.toSeconds(), db);
        System.out.println(Load.HEADER);
        System.out.println(Load.RULE);
        raw.print("raw JDBC insert, one transaction each");
        storeAlone.print("store create (group commit), no HTTP");
        api.print("API create over HTTPS (1 KiB ConfigMap)");
        etcd[0].print("etcd, one member: create transaction (mod revision = 0, put)");
        etcd[1].print("etcd, three members: create transaction");
        System.out.printf(Locale.ROOT, "%nstore / etcd one member = %.2f, three members = %.2f; store / raw insert = %.2f;"
                + " API / etcd one member = %.2f%n", storeAlone.rate() / etcd[0].rate(), storeAlone.rate() / etcd[1].rate(),
                storeAlone.rate() / raw.rate(), api.rate() / etcd[0].rate());
        System.out.printf(Locale.ROOT, "watch delivery p99: ours %.2f ms, etcd's %.2f ms (ours / etcd's = %.2f)%n",
                ours.p99(), etcdWatch.p99(), ours.p99() / etcdWatch.p99());
    }

    // ---- guard rails: encryption at rest and ValidatingAdmissionPolicies

    /**
     * What the guard rails cost, side by side in one run, the same 16 clients and 1 KiB objects: Secrets
     * (sealed with secretbox, the default) next to ConfigMaps (stored as they are); then pod creates
     * before and after 10 ValidatingAdmissionPolicies, each bound to every pod create.
     */
    private void guardRails() throws Exception {
        int count = Integer.getInteger("bench.guardrailCreates", 10_000);
        int rounds = 4;
        int each = Math.max(1, count / rounds);
        String cms = "/api/v1/namespaces/bench/configmaps";
        String secrets = "/api/v1/namespaces/bench/secrets";
        String pods = "/api/v1/namespaces/bench/pods";
        loadCount("warm-up", 1_000, i -> create(cms, configMap("w" + i)));
        loadCount("warm-up", 1_000, i -> create(secrets, secret("w" + i)));
        loadCount("warm-up", 1_000, i -> create(pods, pod("w" + i)));
        // the policies' own code paths (CEL's interpreter above all) warmed as much as the rest before any round
        benchPolicies(true, null);
        loadCount("warm-up", 1_000, i -> create(pods, pod("v" + i)));
        benchPolicies(false, null);
        // the store grows as the phases run, which slows later writes a little: the two sides of each
        // comparison alternate in rounds, so that neither is measured on a smaller database
        List<Result[]> storage = new ArrayList<>();
        List<Result[]> policies = new ArrayList<>();
        double pluginSeconds = 0;
        double pluginCalls = 0;
        for (int r = 0; r < rounds; r++) {
            int round = r;
            storage.add(new Result[] {
                    loadCount("configmaps", each, i -> create(cms, configMap("c" + round + "-" + i))),
                    loadCount("secrets", each, i -> create(secrets, secret("s" + round + "-" + i)))});
        }
        // the controllers follow pods through their informers after each create: each side starts once the
        // server is quiet again, and the sides take turns going first, so neither pays for the other's pods
        // the pod sides vary more from run to run than the policies cost: twice the rounds, half as long
        int podRounds = rounds * 2;
        int podEach = Math.max(1, count / podRounds);
        for (int r = 0; r < podRounds; r++) {
            int round = r;
            Result without = null;
            if (r % 2 == 0) {
                quiesce();
                without = loadCount("pods", podEach, i -> create(pods, pod("p" + round + "-" + i)));
            }
            benchPolicies(true, null);
            quiesce();
            double[] before = policyPluginTime();
            Result with = loadCount("pods with policies", podEach, i -> create(pods, pod("q" + round + "-" + i)));
            double[] after = policyPluginTime();
            pluginSeconds += after[0] - before[0];
            pluginCalls += after[1] - before[1];
            benchPolicies(false, null);
            if (without == null) {
                quiesce();
                without = loadCount("pods", podEach, i -> create(pods, pod("p" + round + "-" + i)));
            }
            policies.add(new Result[] {without, with});
        }
        List<Result[]> storageAtOnce = storageAtOnce(rounds);
        List<Result[]> policiesAtOnce = policiesAtOnce(rounds);
        System.out.println();
        System.out.printf(Locale.ROOT, "%,d creates of each in %d rounds, %d clients%n%n", each * rounds, rounds, CLIENTS);
        System.out.println(Load.HEADER);
        System.out.println(Load.RULE);
        for (int r = 0; r < rounds; r++) {
            storage.get(r)[0].print("round " + (r + 1) + ": API create, 1 KiB ConfigMap (stored as it is)");
            storage.get(r)[1].print("round " + (r + 1) + ": API create, 1 KiB Secret (encrypted at rest, secretbox)");
        }
        for (int r = 0; r < podRounds; r++) {
            policies.get(r)[0].print("round " + (r + 1) + ": API create, pod");
            policies.get(r)[1].print("round " + (r + 1) + ": API create, pod, 10 ValidatingAdmissionPolicies matching");
        }
        for (int r = 0; r < rounds; r++) {
            storageAtOnce.get(r)[0].print("round " + (r + 1) + ", both sides at once: 1 KiB ConfigMap (stored as it is)");
            storageAtOnce.get(r)[1].print("round " + (r + 1) + ", both sides at once: 1 KiB Secret (encrypted at rest,"
                    + " secretbox)");
        }
        for (int r = 0; r < rounds; r++) {
            policiesAtOnce.get(r)[0].print("round " + (r + 1) + ", both sides at once: pod, namespace without policies");
            policiesAtOnce.get(r)[1].print("round " + (r + 1) + ", both sides at once: pod, 10 ValidatingAdmissionPolicies"
                    + " matching");
        }
        System.out.printf(Locale.ROOT, "%nall rounds together, one side at a time: encrypted Secret / plain ConfigMap rate"
                + " = %.2f; pods with 10 policies / without = %.2f%n", combined(storage, 1) / combined(storage, 0),
                combined(policies, 1) / combined(policies, 0));
        System.out.printf(Locale.ROOT, "all rounds together, both sides at once (CPU µs/op there: per create of either"
                + " side): encrypted Secret / plain ConfigMap rate = %.2f; pods with 10 policies / without = %.2f%n",
                combined(storageAtOnce, 1) / combined(storageAtOnce, 0),
                combined(policiesAtOnce, 1) / combined(policiesAtOnce, 0));
        System.out.printf(Locale.ROOT, "the ValidatingAdmissionPolicy plugin's own time per create while 10 policies"
                + " matched: %.1f µs (apiserver_admission_controller_admission_duration_seconds, %,.0f calls)%n",
                pluginSeconds / pluginCalls * 1e6, pluginCalls);
    }

    /** The ValidatingAdmissionPolicy plugin's total seconds and calls on creates so far, from /metrics. */
    private double[] policyPluginTime() throws Exception {
        String labels = "{name=\"ValidatingAdmissionPolicy\",operation=\"CREATE\",rejected=\"false\",type=\"validate\"}";
        double[] out = new double[2];
        for (String line : http("GET", "/metrics", null).body().split("\n")) {
            if (line.startsWith("apiserver_admission_controller_admission_duration_seconds_sum" + labels)) {
                out[0] = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            } else if (line.startsWith("apiserver_admission_controller_admission_duration_seconds_count" + labels)) {
                out[1] = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return out;
    }

    // ---- API Priority and Fairness

    /**
     * One team floods the API (32 clients listing 2,000 ConfigMaps and creating as fast as they can) while
     * another writes at a steady 50 creates/s: the steady writer's latencies unloaded and under the flood,
     * what the flooding team got (served, 429, failed), and the requests the control plane's levels refused.
     * Then creates/s through the default FlowSchemas (the user in global-default) next to the same user
     * classified as exempt, which skips the seat accounting: what the dispatching costs.
     */
    private void fairness() throws Exception {
        http("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"bench-flood\"}}");
        http("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/bench-flood/rolebindings", "{\"metadata\":"
                + "{\"name\":\"flooders\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":"
                + "\"ClusterRole\",\"name\":\"edit\"},\"subjects\":[{\"kind\":\"Group\",\"name\":\"flooders\","
                + "\"apiGroup\":\"rbac.authorization.k8s.io\"},{\"kind\":\"Group\",\"name\":\"benchers\","
                + "\"apiGroup\":\"rbac.authorization.k8s.io\"}]}");
        Thread.sleep(1_000); // the authorizer follows role bindings through a watch
        String floodCms = "/api/v1/namespaces/bench-flood/configmaps";
        loadCount("flood objects", 2_000, i -> create(floodCms, configMapIn("bench-flood", "f" + i)));
        Duration run = RUN;
        String steadyPath = "/api/v1/namespaces/bench/configmaps";
        Load.Result unloaded = paced(steadyPath, "u", 50, run);
        Flood shared = flood(floodCms, steadyPath, "l", run);
        // as an administrator guards teams: the flooding team in a level of its own, two seats, short queues
        http("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", """
                {"metadata":{"name":"bench-flooders"},"spec":{"type":"Limited","limited":{
                 "nominalConcurrencyShares":1,"lendablePercent":0,"borrowingLimitPercent":0,
                 "limitResponse":{"type":"Queue","queuing":{"queues":8,"handSize":2,"queueLengthLimit":4}}}}}""");
        http("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", """
                {"metadata":{"name":"bench-flooders"},"spec":{"priorityLevelConfiguration":{"name":"bench-flooders"},
                 "matchingPrecedence":500,"distinguisherMethod":{"type":"ByUser"},
                 "rules":[{"subjects":[{"kind":"Group","group":{"name":"flooders"}}],
                  "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"namespaces":["*"],
                   "clusterScope":true}]}]}}""");
        Thread.sleep(1_000); // the configuration reaches the filter through a watch
        Flood ownLevel = flood(floodCms, steadyPath, "o", run);
        String metrics = http("GET", "/metrics", null).body();
        long controlPlaneRefused = metrics.lines().filter(l -> l.startsWith("apiserver_flowcontrol_rejected_requests_total")
                && (l.contains("priority_level=\"leader-election\"") || l.contains("priority_level=\"node-high\"")
                || l.contains("priority_level=\"system\"") || l.contains("priority_level=\"workload-high\"")))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        http("DELETE", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/bench-flooders", null);

        // dispatching's cost: the same creates, classified into global-default and into an exempt schema
        loadCount("warm-up", 1_000, i -> create(steadyPath, configMap("w" + i)));
        Result limited = loadCount("limited", 5_000, i -> create(steadyPath, configMap("g" + i)));
        http("POST", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", """
                {"metadata":{"name":"bench-exempt"},"spec":{"priorityLevelConfiguration":{"name":"exempt"},
                 "matchingPrecedence":3,"rules":[{"subjects":[{"kind":"Group","group":{"name":"benchers"}}],
                  "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"namespaces":["*"]}]}]}}""");
        Thread.sleep(1_000);
        Result exempt = loadCount("exempt", 5_000, i -> create(steadyPath, configMap("e" + i)));

        System.out.println();
        System.out.printf(Locale.ROOT, "steady writer, 50 creates/s for %ds, alone and beside 32 flooding clients"
                + " (other team)%n%n", run.toSeconds());
        System.out.println(Load.HEADER);
        System.out.println(Load.RULE);
        unloaded.print("steady writer alone");
        shared.writer().print("steady writer, flood in the same level (global-default)");
        ownLevel.writer().print("steady writer, flooding team in a level of its own");
        limited.print("API create, 16 clients, user in global-default (queued, seats counted)");
        exempt.print("API create, 16 clients, same user in an exempt FlowSchema");
        System.out.printf(Locale.ROOT, "%nsteady writer p99 under the flood / alone: %.2f in the same level, %.2f"
                + " with the flooding team in its own (goal: at most 2)%n", shared.writer().p99() / unloaded.p99(),
                ownLevel.writer().p99() / unloaded.p99());
        shared.print("flooding team, same level");
        ownLevel.print("flooding team, own level");
        System.out.printf(Locale.ROOT, "refused at the control plane's levels (leader-election, node-high, system,"
                + " workload-high): %d%n", controlPlaneRefused);
        System.out.printf(Locale.ROOT, "creates/s through the default FlowSchemas / exempt = %.2f%n",
                limited.rate() / exempt.rate());
    }

    /** What one flood did, and how the steady writer fared meanwhile. */
    private record Flood(Load.Result writer, long served, long refused, long failed, long slowest) {
        void print(String what) {
            System.out.printf(Locale.ROOT, "%s: %,d served, %,d answered 429 (each retried after its Retry-After,"
                    + " as client-go does), %,d failed otherwise; slowest answer %,d ms%n", what, served, refused,
                    failed, slowest);
        }
    }

    /**
     * 32 clients of the flooding team, half listing its namespace's ConfigMaps and half creating more, while
     * the steady writer creates 50 a second in its own namespace.
     */
    private Flood flood(String floodCms, String steadyPath, String prefix, Duration run) throws Exception {
        AtomicLong served = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong slowest = new AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean flooding = new java.util.concurrent.atomic.AtomicBoolean(true);
        ExecutorService flood = Executors.newFixedThreadPool(32);
        for (int c = 0; c < 32; c++) {
            int client = c;
            flood.submit(() -> {
                try (KeepAliveClient k = new KeepAliveClient(sslContext, port, FLOOD_TOKEN)) {
                    while (flooding.get()) {
                        long t0 = System.nanoTime();
                        KeepAliveClient.Response r = client % 2 == 0 ? k.send("GET", floodCms, null)
                                : k.send("POST", floodCms, Json.write(configMapIn("bench-flood",
                                prefix + "-" + FLOOD_NAMES.incrementAndGet())));
                        slowest.accumulateAndGet((System.nanoTime() - t0) / 1_000_000, Math::max);
                        if (r.status() == 429) {
                            refused.incrementAndGet();
                            Thread.sleep(1_000); // Retry-After: 1
                        } else {
                            (r.status() < 300 ? served : failed).incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    failed.incrementAndGet();
                }
                return null;
            });
        }
        Thread.sleep(2_000);
        Load.Result writer = paced(steadyPath, prefix, 50, run);
        flooding.set(false);
        flood.shutdown();
        flood.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS);
        return new Flood(writer, served.get(), refused.get(), failed.get(), slowest.get());
    }

    private static final AtomicLong FLOOD_NAMES = new AtomicLong();

    /** Creates at a fixed rate from one client, each latency recorded. */
    private Load.Result paced(String path, String prefix, int perSecond, Duration duration) throws Exception {
        long interval = 1_000_000_000L / perSecond;
        long end = System.nanoTime() + duration.toNanos();
        List<Long> latencies = new ArrayList<>();
        long cpu0 = Load.processCpuNanos();
        long t0 = System.nanoTime();
        int n = 0;
        try (KeepAliveClient k = new KeepAliveClient(sslContext, port, BENCH_TOKEN)) {
            for (long next = System.nanoTime(); next < end; next += interval) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                long start = System.nanoTime();
                KeepAliveClient.Response r = k.send("POST", path, Json.write(configMap(prefix + "-" + n++)));
                latencies.add(System.nanoTime() - start);
                if (r.status() != 201) {
                    throw new IllegalStateException("the steady writer was refused: " + r.status() + " " + r.body());
                }
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Load.Result(sorted.length / seconds, sorted[sorted.length / 2] / 1e6,
                sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] / 1e6, sorted.length,
                (Load.processCpuNanos() - cpu0) / 1e3 / sorted.length);
    }

    /** The rate of one side over all rounds: every operation over the time all of them took. */
    private static double combined(List<Result[]> rounds, int side) {
        double ops = 0;
        double seconds = 0;
        for (Result[] r : rounds) {
            ops += r[side].count();
            seconds += r[side].count() / r[side].rate();
        }
        return ops / seconds;
    }

    /**
     * Waits (up to 30 s) until the server is quiet: what the controllers' informers and the garbage collector
     * do after each create runs a while after it, and would otherwise land in whichever side runs next.
     */
    private static void quiesce() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            long cpu0 = Load.processCpuNanos();
            Thread.sleep(500);
            if (Load.processCpuNanos() - cpu0 < 50_000_000L) { // under a tenth of one core
                return;
            }
        }
    }

    /**
     * The comparisons with both sides running at once, half the clients each, so that whatever else the server
     * does meanwhile — collections, the controllers following the objects, the store's upkeep — falls on both
     * sides alike and the two rates differ by what the guard rail costs, not by when each side happened to run.
     * Here ConfigMaps next to encrypted Secrets.
     */
    private List<Result[]> storageAtOnce(int rounds) throws Exception {
        List<Result[]> out = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            int round = r;
            quiesce();
            out.add(atOnce(i -> create("/api/v1/namespaces/bench/configmaps", configMap("a" + round + "-" + i)),
                    i -> create("/api/v1/namespaces/bench/secrets", secret("a" + round + "-" + i))));
        }
        return out;
    }

    /** As {@link #storageAtOnce}: pods in two namespaces, the 10 policies bound to one of them (each in turn). */
    private List<Result[]> policiesAtOnce(int rounds) throws Exception {
        String[] namespaces = {"bench-policy-a", "bench-policy-b"};
        List<Result[]> out = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            int round = r;
            String bound = namespaces[r % 2];
            String free = namespaces[(r + 1) % 2];
            benchPolicies(true, bound);
            quiesce();
            out.add(atOnce(i -> create("/api/v1/namespaces/" + free + "/pods", podIn(free, "t" + round + "-" + i)),
                    i -> create("/api/v1/namespaces/" + bound + "/pods", podIn(bound, "t" + round + "-" + i))));
            benchPolicies(false, null);
        }
        return out;
    }

    /**
     * Two loads at once for half a run (3 s at least), half the clients each. Each side's window saw the process's CPU for
     * both: the CPU per operation given is per operation of either side, the same for both.
     */
    private static Result[] atOnce(Load.Op first, Load.Op second) throws Exception {
        Duration run = Duration.ofSeconds(Math.max(3, RUN.toSeconds() / 2));
        var other = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return Load.timed(CLIENTS / 2, run, second);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Result a = Load.timed(CLIENTS / 2, run, first);
        Result b = other.get();
        double cpu = (a.cpuMicros() * a.count() + b.cpuMicros() * b.count()) / 2 / (a.count() + b.count());
        return new Result[] {new Result(a.rate(), a.p50(), a.p99(), a.count(), cpu),
                new Result(b.rate(), b.p50(), b.p99(), b.count(), cpu)};
    }

    /**
     * Creates (or deletes) 10 ValidatingAdmissionPolicies bound to every pod create (in {@code namespace} only,
     * when it is given), each checking the containers.
     */
    private void benchPolicies(boolean present, String namespace) throws Exception {
        String policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
        String bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
        for (int p = 0; p < 10; p++) {
            String name = "bench-policy-" + p;
            if (!present) {
                http("DELETE", bindings + "/" + name, null);
                http("DELETE", policies + "/" + name, null);
                continue;
            }
            HttpResponse<String> policy = http("POST", policies, """
                    {"metadata":{"name":"%s"},"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],
                     "apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["pods"]}]},
                     "validations":[{"expression":"object.spec.containers.all(c, c.image != '' && c.name.size() < 64)",
                      "message":"every container needs an image"}]}}""".formatted(name));
            String matchResources = namespace == null ? "" : ",\"matchResources\":{\"namespaceSelector\":{"
                    + "\"matchLabels\":{\"kubernetes.io/metadata.name\":\"" + namespace + "\"}}}";
            HttpResponse<String> binding = http("POST", bindings, "{\"metadata\":{\"name\":\"" + name + "\"},"
                    + "\"spec\":{\"policyName\":\"" + name + "\",\"validationActions\":[\"Deny\"]"
                    + matchResources + "}}");
            if (policy.statusCode() != 201 || binding.statusCode() != 201) {
                throw new IllegalStateException("policy refused: " + policy.body() + " " + binding.body());
            }
        }
        Thread.sleep(500); // the bindings reach the watch cache admission reads
    }

    private static ObjectNode secret(String name) {
        ObjectNode o = core("Secret", name);
        o.putObject("data").put("payload", java.util.Base64.getEncoder().encodeToString(
                PAYLOAD.substring(0, 690).getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        return o;
    }

    private static ObjectNode pod(String name) {
        return podIn("bench", name);
    }

    private static ObjectNode podIn(String namespace, String name) {
        ObjectNode o = core("Pod", name);
        ((ObjectNode) o.get("metadata")).put("namespace", namespace);
        o.putObject("spec").putArray("containers").addObject().put("name", "c").put("image", "nginx:1.27");
        return o;
    }

    // ---- custom resources

    /** A kind of about ten fields and one CEL rule. */
    private static final String BENCH_CRD = """
            {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
             "metadata":{"name":"widgets.bench.example.com"},
             "spec":{"group":"bench.example.com","scope":"Namespaced",
              "names":{"plural":"widgets","kind":"Widget"},
              "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
               "schema":{"openAPIV3Schema":{"type":"object","properties":{
                "spec":{"type":"object","required":["color"],
                 "x-kubernetes-validations":[{"rule":"self.min <= self.max","message":"min must not exceed max"}],
                 "properties":{
                  "color":{"type":"string","enum":["red","green","blue"]},
                  "size":{"type":"string","default":"medium"},
                  "min":{"type":"integer","minimum":0},
                  "max":{"type":"integer","maximum":1000},
                  "owner":{"type":"string","maxLength":63},
                  "tags":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"},
                  "labels":{"type":"object","additionalProperties":{"type":"string"}},
                  "enabled":{"type":"boolean"},
                  "ratio":{"type":"number"},
                  "payload":{"type":"string"}}},
                "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}}""";

    /**
     * Custom resources through the API next to ConfigMaps in the same run: the time from a
     * CRD's creation to its first instance being served, then as many creates of each
     * (1 KiB, ten fields, one CEL rule for the custom resource) from the same clients.
     */
    private void customResources() throws Exception {
        int count = Integer.getInteger("bench.crs", 10_000);
        http("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "{\"metadata\":{\"name\":\"bench-widgets\"},"
                + "\"rules\":[{\"apiGroups\":[\"bench.example.com\"],\"resources\":[\"widgets\"],\"verbs\":[\"*\"]}]}");
        http("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings", "{\"metadata\":{\"name\":"
                + "\"bench-widgets\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
                + "\"name\":\"bench-widgets\"},\"subjects\":[{\"kind\":\"Group\",\"name\":\"benchers\","
                + "\"apiGroup\":\"rbac.authorization.k8s.io\"}]}");
        String widgets = "/apis/bench.example.com/v1/namespaces/bench/widgets";
        long t0 = System.nanoTime();
        HttpResponse<String> crd = http("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", BENCH_CRD);
        if (crd.statusCode() != 201) {
            throw new IllegalStateException("the CRD was refused: " + crd.body());
        }
        while (http("POST", widgets, Json.write(widget("first"))).statusCode() != 201) {
            if (System.nanoTime() - t0 > 30_000_000_000L) {
                throw new IllegalStateException("the CRD was never served");
            }
            Thread.sleep(5);
        }
        double servedMs = (System.nanoTime() - t0) / 1e6;
        loadCount("warm-up", 1_000, i -> create(widgets, widget("w" + i)));
        loadCount("warm-up", 1_000, i -> create("/api/v1/namespaces/bench/configmaps", configMap("w" + i)));
        Result configMaps = loadCount("configmaps", count,
                i -> create("/api/v1/namespaces/bench/configmaps", configMap("c" + i)));
        Result crs = loadCount("custom resources", count, i -> create(widgets, widget("c" + i)));
        System.out.println();
        System.out.printf(Locale.ROOT, "%,d creates of each, %d clients%n%n", count, CLIENTS);
        System.out.println(Load.HEADER);
        System.out.println(Load.RULE);
        configMaps.print("API create over HTTPS (1 KiB ConfigMap)");
        crs.print("API create over HTTPS (1 KiB custom resource, 10 fields, 1 CEL rule)");
        System.out.printf(Locale.ROOT, "%ncustom resource / ConfigMap rate = %.2f%n", crs.rate() / configMaps.rate());
        System.out.printf(Locale.ROOT, "CRD created to first instance served: %.0f ms%n", servedMs);
    }

    private static ObjectNode widget(String name) {
        ObjectNode o = Json.object();
        o.put("apiVersion", "bench.example.com/v1");
        o.put("kind", "Widget");
        o.putObject("metadata").put("name", name).put("namespace", "bench");
        ObjectNode spec = o.putObject("spec");
        spec.put("color", "red").put("min", 1).put("max", 10).put("owner", "team-a").put("enabled", true)
                .put("ratio", 0.5);
        spec.putArray("tags").add("a").add("b");
        spec.putObject("labels").put("tier", "web");
        spec.put("payload", "x".repeat(1024 - 300));
        return o;
    }

    // ---- server-side apply

    /**
     * Creates by update (POST) against creates by server-side apply (PATCH
     * application/apply-patch+yaml, the JSON kubectl sends) of the same objects, 1 KiB
     * ConfigMaps and Deployments, in one run; then an unchanged configuration applied
     * again (what GitOps tools do all day), and managedFields' bytes per object.
     */
    private void applyVersusUpdate() throws Exception {
        int count = Integer.getInteger("bench.applies", 10_000);
        String cms = "/api/v1/namespaces/bench/configmaps";
        String deployments = "/apis/apps/v1/namespaces/bench/deployments";
        loadCount("warm-up", 1_000, i -> create(cms + "?fieldManager=bench", configMap("w" + i)));
        loadCount("warm-up", 1_000, i -> apply(cms + "/wa" + i, configMap("wa" + i)));
        Result cmUpdate = loadCount("configmaps by update", count,
                i -> create(cms + "?fieldManager=bench", configMap("u" + i)));
        Result cmApply = loadCount("configmaps by apply", count, i -> apply(cms + "/a" + i, configMap("a" + i)));
        Result cmReapply = loadCount("configmaps applied again", count, i -> apply(cms + "/a" + i,
                configMap("a" + i)));
        int deploymentCount = Math.max(1, count / 5);
        // the Deployment controller's work for one phase is let finish before the next is timed
        Result dUpdate = loadCount("deployments by update", deploymentCount,
                i -> create(deployments + "?fieldManager=bench", deployment("u" + i)));
        awaitDeploymentsObserved(deployments, deploymentCount);
        Result dApply = loadCount("deployments by apply", deploymentCount,
                i -> apply(deployments + "/a" + i, deployment("a" + i)));
        awaitDeploymentsObserved(deployments, 2 * deploymentCount);
        System.out.println();
        System.out.printf(Locale.ROOT, "%,d ConfigMaps and %,d Deployments each way, %d clients%n%n", count,
                deploymentCount, CLIENTS);
        System.out.println(Load.HEADER);
        System.out.println(Load.RULE);
        cmUpdate.print("ConfigMap (1 KiB) created by update (POST)");
        cmApply.print("ConfigMap (1 KiB) created by server-side apply");
        cmReapply.print("ConfigMap (1 KiB) applied again unchanged (no write)");
        dUpdate.print("Deployment created by update (POST)");
        dApply.print("Deployment created by server-side apply");
        System.out.printf(Locale.ROOT, "%napply / update rate: ConfigMaps %.2f, Deployments %.2f%n",
                cmApply.rate() / cmUpdate.rate(), dApply.rate() / dUpdate.rate());
        // as created, before any controller writes to them
        printManagedBytes("ConfigMap by update", http("POST", cms + "?fieldManager=bench",
                Json.write(configMap("bytes-u"))).body());
        printManagedBytes("ConfigMap by apply", http("PATCH", cms + "/bytes-a?fieldManager=bench",
                "application/apply-patch+yaml", Json.write(configMap("bytes-a"))).body());
        printManagedBytes("Deployment by update", http("POST", deployments + "?fieldManager=bench",
                Json.write(deployment("bytes-u"))).body());
        printManagedBytes("Deployment by apply", http("PATCH", deployments + "/bytes-a?fieldManager=bench",
                "application/apply-patch+yaml", Json.write(deployment("bytes-a"))).body());
    }

    /** Waits (up to two minutes) until the controller has observed every one of the Deployments. */
    private void awaitDeploymentsObserved(String path, int expected) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline) {
            JsonNode list = Json.MAPPER.readTree(http("GET", path, null).body());
            int observed = 0;
            for (JsonNode d : list.path("items")) {
                if (d.path("status").path("observedGeneration").asLong(0) >= d.path("metadata").path("generation")
                        .asLong(1)) {
                    observed++;
                }
            }
            if (observed >= expected) {
                return;
            }
            Thread.sleep(500);
        }
        System.out.println("(the Deployment controller had not observed all " + expected + " Deployments in 2 min)");
    }

    private static void printManagedBytes(String what, String created) {
        ObjectNode obj = (ObjectNode) Json.MAPPER.readTree(created);
        int all = Json.write(obj).length();
        int managed = Json.write(obj.path("metadata").path("managedFields")).length();
        System.out.printf(Locale.ROOT, "managedFields of a %s: %,d of its %,d bytes%n", what, managed, all);
    }

    private static ObjectNode deployment(String name) {
        ObjectNode o = Json.object();
        o.put("apiVersion", "apps/v1");
        o.put("kind", "Deployment");
        o.putObject("metadata").put("name", name).put("namespace", "bench").putObject("labels").put("app", name);
        ObjectNode spec = o.putObject("spec");
        spec.put("replicas", 0);
        spec.putObject("selector").putObject("matchLabels").put("app", name);
        ObjectNode template = spec.putObject("template");
        template.putObject("metadata").putObject("labels").put("app", name);
        ObjectNode container = template.putObject("spec").putArray("containers").addObject();
        container.put("name", "web").put("image", "nginx:1.27");
        container.putArray("ports").addObject().put("containerPort", 80);
        container.putArray("env").addObject().put("name", "MODE").put("value", "bench");
        container.putObject("resources").putObject("requests").put("cpu", "100m").put("memory", "64Mi");
        return o;
    }

    private void apply(String path, ObjectNode body) throws Exception {
        KeepAliveClient c = clients.get();
        if (c == null) {
            c = new KeepAliveClient(sslContext, port, BENCH_TOKEN);
            clients.set(c);
        }
        KeepAliveClient.Response r = c.send("PATCH", path + "?fieldManager=bench", "application/apply-patch+yaml",
                Json.write(body));
        if (r.status() != 201 && r.status() != 200) {
            throw new IllegalStateException("apply failed: " + r.status() + " " + r.body());
        }
    }

    /** A fixed number of operations shared among the clients, timed. */
    private Result loadCount(String name, int n, Load.Op op) throws Exception {
        return Load.counted(CLIENTS, n, op);
    }

    private Result load(String name, Load.Op op) throws Exception {
        return load(name, RUN, op);
    }

    private Result load(String name, Duration duration, Load.Op op) throws Exception {
        return Load.timed(CLIENTS, duration, op);
    }

    /**
     * The database the raw baselines write to. On H2 a file of its own beside the store's, with the same settings, so
     * that the store's file holds only what the store wrote (the baselines' 200,000 single-row commits grew the store's
     * file by about 2 GB before the phases that measure the store). On PostgreSQL the same database (its tables are
     * files of their own).
     */
    private DataSource rawDatabase() {
        if (dataSource instanceof com.zaxxer.hikari.HikariDataSource hikari && hikari.getJdbcUrl().startsWith("jdbc:h2:")) {
            com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
            cfg.setJdbcUrl(hikari.getJdbcUrl().replaceFirst("[^/;]+(;|$)", "raw-baseline$1"));
            cfg.setUsername(hikari.getUsername());
            cfg.setPassword(hikari.getPassword());
            cfg.setMaximumPoolSize(CLIENTS + 1);
            return new com.zaxxer.hikari.HikariDataSource(cfg);
        }
        return dataSource;
    }

    private Result rawInserts(boolean counter) throws Exception {
        DataSource raw = rawDatabase();
        try {
            return rawInserts(raw, counter);
        } finally {
            if (raw != dataSource) {
                ((com.zaxxer.hikari.HikariDataSource) raw).close();
            }
        }
    }

    private Result rawInserts(DataSource dataSource, boolean counter) throws Exception {
        String table = counter ? "bench_raw_counter" : "bench_raw";
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, k VARCHAR(512) NOT NULL, v TEXT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS bench_counter (id INT PRIMARY KEY, n BIGINT NOT NULL)");
            s.execute("DELETE FROM bench_counter");
            s.execute("INSERT INTO bench_counter VALUES (1, 0)");
        }
        String row = Json.write(configMap("raw"));
        ThreadLocal<Connection> conns = ThreadLocal.withInitial(() -> {
            try {
                Connection c = dataSource.getConnection();
                c.setAutoCommit(false);
                return c;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        List<Connection> opened = java.util.Collections.synchronizedList(new ArrayList<>());
        Result r = load(counter ? "raw+counter" : "raw", i -> {
            Connection c = conns.get();
            opened.add(c);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, k, v) VALUES (?, ?, ?)")) {
                ps.setLong(1, i);
                ps.setString(2, "bench/raw/" + i);
                ps.setString(3, row);
                ps.executeUpdate();
            }
            if (counter) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE bench_counter SET n = n + 1 WHERE id = 1")) {
                    ps.executeUpdate();
                }
            }
            c.commit();
        });
        for (Connection c : new java.util.HashSet<>(opened)) {
            c.close();
        }
        return r;
    }

    private static ObjectNode configMapIn(String namespace, String name) {
        ObjectNode o = configMap(name);
        ((ObjectNode) o.get("metadata")).put("namespace", namespace);
        return o;
    }

    /** A core/v1 object of the kind, named, in the namespace bench. */
    private static ObjectNode core(String kind, String name) {
        ObjectNode o = Json.object();
        o.put("apiVersion", "v1");
        o.put("kind", kind);
        o.putObject("metadata").put("name", name).put("namespace", "bench");
        return o;
    }

    private static ObjectNode configMap(String name) {
        ObjectNode o = core("ConfigMap", name);
        o.putObject("data").put("payload", PAYLOAD);
        return o;
    }

    /** One kept-alive connection per load thread. */
    private final ThreadLocal<KeepAliveClient> clients = new ThreadLocal<>();

    /** The measured API creates, with the machine probed before and the JVM's work during them printed. */
    private Result apiCreates() throws Exception {
        MachineProbe.print("before the API creates");
        MachineProbe.JvmWork jvm = MachineProbe.jvmWork();
        Result api = load("api", i -> create("/api/v1/namespaces/bench/configmaps", configMap("c" + i)));
        MachineProbe.printJvmWork("during the API creates", jvm, api.count());
        return api;
    }

    /**
     * Warms the server up with ConfigMaps created as the measured creates are, then deleted again in one request
     * (so the store does not grow; not timed), until its JIT compiler has settled ({@link JitWarmUp}): rounds of 5 s
     * of creates, 36 rounds at most; each round is printed, so the warm-up is a figure too. (After rounds that
     * created and deleted each ConfigMap in turn, the measured creates cost 362–466 µs of CPU each; after these,
     * 345–414: docs/benchmarks.md, 2026-12-05.)
     */
    private void warmUntilCompiled() throws Exception {
        String path = "/api/v1/namespaces/bench/configmaps";
        JitWarmUp.run("warm-up", 36, r -> {
            Result done = load("warm-up", Duration.ofSeconds(5), i -> {
                ObjectNode cm = configMap("warm" + r + "-" + i);
                ((ObjectNode) cm.get("metadata")).putObject("labels").put("bench-warm-up", "true");
                create(path, cm);
            });
            HttpResponse<String> deleted = http("DELETE", path + "?labelSelector=bench-warm-up%3Dtrue", null);
            if (deleted.statusCode() != 200) {
                throw new IllegalStateException("the warm-up's ConfigMaps were not deleted: " + deleted.statusCode()
                        + " " + deleted.body());
            }
            return String.format(Locale.ROOT, "5 s, %,.0f creates/s, p99 %.2f ms (then deleted)", done.rate(),
                    done.p99());
        });
    }

    /** This load thread's kept-alive connection, opened at its first request. */
    private KeepAliveClient client() throws Exception {
        KeepAliveClient c = clients.get();
        if (c == null) {
            c = new KeepAliveClient(sslContext, port, BENCH_TOKEN);
            clients.set(c);
        }
        return c;
    }

    private void create(String path, ObjectNode body) throws Exception {
        KeepAliveClient.Response r = client().send("POST", path, Json.write(body));
        if (r.status() != 201) {
            throw new IllegalStateException("create failed: " + r.status() + " " + r.body());
        }
    }

    private HttpResponse<String> http(String method, String path, String body) throws Exception {
        return http(method, path, "application/json", body);
    }

    private HttpResponse<String> http(String method, String path, String contentType, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + token)
                .header("Content-Type", contentType).timeout(Duration.ofSeconds(60));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static final List<String> BENCH_NAMESPACES = List.of("bench", "bench-list", "bench-watch", "bench-policy-a",
            "bench-policy-b");

    /** The load user may edit in the benchmark namespaces; waits until the authorizer knows. */
    private void grantBenchUser() throws Exception {
        for (String ns : BENCH_NAMESPACES) {
            http("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings", "{\"metadata\":"
                    + "{\"name\":\"benchers\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":"
                    + "\"ClusterRole\",\"name\":\"edit\"},\"subjects\":[{\"kind\":\"Group\",\"name\":\"benchers\","
                    + "\"apiGroup\":\"rbac.authorization.k8s.io\"}]}");
        }
        UserInfo bench = UserInfo.authenticated("bench", "bench", List.of("benchers"));
        long deadline = System.currentTimeMillis() + 30_000;
        while (!authorizer.authorize(RequestAttributes.resource(bench, "create", "", "configmaps", "", "bench", ""))
                .allowed()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("the bench user's RoleBinding never took effect");
            }
            Thread.sleep(20);
        }
    }

    // ---- authorization decisions

    /**
     * 1,000 Roles and 5,000 RoleBindings over 100 namespaces (each binding names one of
     * 5,000 users and one of 50 groups), then 16 threads asking the authorizer chain about
     * random users, half the questions allowed and half not.
     */
    private void authorizationDecisions() throws Exception {
        int namespaces = 100;
        int roles = 1000;
        int bindings = 5000;
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> writes = new ArrayList<>();
        for (int n = 0; n < namespaces; n++) {
            String ns = "authz-" + n;
            writes.add(pool.submit(() -> http("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\"}}")));
        }
        for (Future<?> f : writes) {
            f.get();
        }
        writes.clear();
        for (int r = 0; r < roles; r++) {
            String ns = "authz-" + (r % namespaces);
            String resource = List.of("pods", "configmaps", "secrets", "services", "deployments").get(r % 5);
            String group = resource.equals("deployments") ? "apps" : "";
            String body = "{\"metadata\":{\"name\":\"role-" + r + "\"},\"rules\":[{\"apiGroups\":[\"" + group
                    + "\"],\"resources\":[\"" + resource + "\"],\"verbs\":[\"get\",\"list\",\"watch\"]}]}";
            writes.add(pool.submit(() -> http("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles",
                    body)));
        }
        for (int b = 0; b < bindings; b++) {
            String ns = "authz-" + (b % namespaces);
            int role = (b % (roles / namespaces)) * namespaces + (b % namespaces);
            String body = "{\"metadata\":{\"name\":\"binding-" + b + "\"},\"roleRef\":{\"apiGroup\":"
                    + "\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"role-" + role + "\"},\"subjects\":"
                    + "[{\"kind\":\"User\",\"name\":\"user-" + b + "\",\"apiGroup\":\"rbac.authorization.k8s.io\"},"
                    + "{\"kind\":\"Group\",\"name\":\"group-" + (b % 50) + "\",\"apiGroup\":\"rbac.authorization.k8s.io\"}]}";
            writes.add(pool.submit(() -> http("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns
                    + "/rolebindings", body)));
        }
        for (Future<?> f : writes) {
            HttpResponse<?> r = (HttpResponse<?>) f.get();
            if (r.statusCode() != 201) {
                throw new IllegalStateException("setup write failed: " + r.statusCode() + " " + r.body());
            }
        }
        pool.shutdown();
        UserInfo last = UserInfo.authenticated("user-" + (bindings - 1), "", List.of("group-" + ((bindings - 1) % 50)));
        int lastRole = ((bindings - 1) % (roles / namespaces)) * namespaces + ((bindings - 1) % namespaces);
        String lastResource = List.of("pods", "configmaps", "secrets", "services", "deployments").get(lastRole % 5);
        while (!authorizer.authorize(RequestAttributes.resource(last, "get", lastResource.equals("deployments") ? "apps"
                : "", lastResource, "", "authz-" + ((bindings - 1) % namespaces), "x")).allowed()) {
            Thread.sleep(10);
        }
        System.out.printf(Locale.ROOT, "policy of %d Roles and %d RoleBindings in %d namespaces written and indexed"
                + " in %.1f s%n", roles, bindings, namespaces, (System.nanoTime() - t0) / 1e9);
        AtomicLong allowed = new AtomicLong();
        Result r = load("authz", i -> {
            java.util.concurrent.ThreadLocalRandom rnd = java.util.concurrent.ThreadLocalRandom.current();
            int b = rnd.nextInt(bindings);
            int role = (b % (roles / namespaces)) * namespaces + (b % namespaces);
            String resource = List.of("pods", "configmaps", "secrets", "services", "deployments").get(role % 5);
            boolean ask = rnd.nextBoolean();
            // half the questions match the user's role; half ask in another namespace
            String ns = "authz-" + (ask ? b % namespaces : (b + 1) % namespaces);
            UserInfo user = UserInfo.authenticated("user-" + b, "", List.of("group-" + (b % 50)));
            if (authorizer.authorize(RequestAttributes.resource(user, "list", resource.equals("deployments") ? "apps"
                    : "", resource, "", ns, "")).allowed()) {
                allowed.incrementAndGet();
            }
        });
        System.out.printf(Locale.ROOT, "authorization decisions (Node + RBAC chain, in process): %,.0f/s,"
                + " p50 %.1f µs, p99 %.1f µs%n", r.rate(), r.p50() * 1000, r.p99() * 1000);
        System.out.printf(Locale.ROOT, "allowed %.1f %% of %,d decisions%n", 100.0 * allowed.get() / r.count(), r.count());
    }

    // ---- watch delivery

    private WatchDelivery.Result watchLatency() throws Exception {
        int watchers = Integer.getInteger("bench.watchers", 500);
        int rate = Integer.getInteger("bench.rate", 200);
        int seconds = (int) RUN.toSeconds();
        warmWatchesUntilCompiled(watchers, rate);
        WatchDelivery.Result r = watchRound(watchers, rate, seconds);
        System.out.println();
        r.print("watch delivery", watchers, rate, seconds);
        return r;
    }

    /**
     * As {@link #warmUntilCompiled} for creates: rounds of the same watches, 5 s each and not measured, until the
     * JIT compiler takes under a tenth of a round, three rounds at most. The first round of watches a server
     * serves is compiled while it runs: its p99 was 480 ms where the third's was 74 ms (2026-12-04).
     */
    private void warmWatchesUntilCompiled(int watchers, int rate) throws Exception {
        JitWarmUp.run("watch warm-up", 3, r -> String.format(Locale.ROOT, "p99 %.2f ms",
                watchRound(watchers, rate, 5).p99()));
    }

    /** Opens the watches, writes {@code rate} ConfigMaps a second for {@code seconds}, and collects the deliveries. */
    private WatchDelivery.Result watchRound(int watchers, int rate, int seconds) throws Exception {
        String rv = Json.MAPPER.readTree(http("GET", "/api/v1/namespaces/bench-watch/configmaps", null).body())
                .at("/metadata/resourceVersion").asString();
        String path = "/api/v1/namespaces/bench-watch/configmaps?watch=true&resourceVersion=" + rv;
        WatchDelivery.Opener opener = Boolean.getBoolean("bench.plainWatch")
                ? WatchDelivery.http11(javax.net.SocketFactory.getDefault(), httpPort, path, token)
                : WatchDelivery.http11(sslContext.getSocketFactory(), port, path, token);
        return WatchDelivery.run(watchers, rate, seconds, opener, WatchDelivery.sentField(), (n, sent) -> {
            ObjectNode o = Json.object();
            o.putObject("metadata").put("name", "w" + n + "-" + sent);
            o.putObject("data").put("sent", Long.toString(sent));
            create("/api/v1/namespaces/bench-watch/configmaps", o);
        }, true);
    }

    // ---- LIST of 10,000 pods

    private void listPods() throws Exception {
        int pods = Integer.getInteger("bench.pods", 10_000);
        AtomicLong made = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> fs = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            fs.add(pool.submit(() -> {
                long i;
                while ((i = made.incrementAndGet()) <= pods) {
                    ObjectNode pod = Json.object();
                    pod.putObject("metadata").put("name", "p" + i).putObject("labels").put("app", "bench");
                    pod.putObject("spec").putArray("containers").addObject().put("name", "c").put("image", "nginx:1.27");
                    create("/api/v1/namespaces/bench-list/pods", pod);
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
        measureList("LIST 10,000 pods (JSON)", "/api/v1/namespaces/bench-list/pods", "application/json");
        measureList("LIST 10,000 pods (Table, as kubectl get)", "/api/v1/namespaces/bench-list/pods",
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
        measureList("LIST 10,000 pods, resourceVersion=0 (JSON)", "/api/v1/namespaces/bench-list/pods?resourceVersion=0",
                "application/json");
    }

    private void measureList(String what, String path, String accept) throws Exception {
        long[] times = new long[7];
        long bytes = 0;
        for (int i = 0; i < times.length; i++) {
            HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + token)
                    .header("Accept", accept).build();
            long t0 = System.nanoTime();
            HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
            times[i] = System.nanoTime() - t0;
            bytes = r.body().length;
        }
        Arrays.sort(times);
        System.out.printf(Locale.ROOT, "%s: median %.1f ms, best %.1f ms, %,d bytes%n", what, times[3] / 1e6,
                times[0] / 1e6, bytes);
    }
}
