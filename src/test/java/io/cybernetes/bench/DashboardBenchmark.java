package io.cybernetes.bench;

import io.cybernetes.api.LocalApi;
import io.cybernetes.apiserver.ApiServerEndpoints;
import io.cybernetes.client.ApiClient;
import io.cybernetes.client.ApiClients;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/**
 * The dashboard against a large cluster ({@code -Pbench -Dbench.only=dashboard}):
 * {@code bench.dashNodes} (1,000) Ready nodes and {@code bench.dashPods} (10,000) Running
 * pods bound to them, written through the API; then {@code bench.dashboards} (20) headless
 * Chromium dashboards signed in as the admin, one after the other — each one's time from
 * opening the page to its first complete render (every node in the table, every pod counted)
 * and the bytes its lists and files took; then, with all of them open, the server's CPU and
 * its established connections over 30 s idle and 30 s with 20 pod changes a second.
 */
final class DashboardBenchmark {

    private final ApiClient admin;
    private final String adminToken;
    private final int httpPort;
    private final ExecutorService clients = Executors.newFixedThreadPool(16);

    DashboardBenchmark(ConfigurableApplicationContext ctx, String adminToken) {
        this.admin = ApiClients.local(ctx.getBean(LocalApi.class), adminToken);
        this.adminToken = adminToken;
        this.httpPort = ctx.getBean(ApiServerEndpoints.class).httpPort();
    }

    void run() throws Exception {
        int nodes = Integer.getInteger("bench.dashNodes", 1000);
        int pods = Integer.getInteger("bench.dashPods", 10_000);
        int dashboards = Integer.getInteger("bench.dashboards", 20);
        long t = System.nanoTime();
        parallel(nodes, this::node);
        admin.create(new NamespaceBuilder().withNewMetadata().withName("dash-bench").endMetadata().build());
        parallel(pods, i -> pod(i, nodes));
        System.out.printf(Locale.ROOT, "%ndashboard: %,d nodes and %,d Running pods written in %.1f s%n", nodes, pods,
                (System.nanoTime() - t) / 1e9);
        List<WebDriver> open = new ArrayList<>();
        try {
            List<Long> firstRender = new ArrayList<>();
            List<Long> bytes = new ArrayList<>();
            for (int i = 0; i < dashboards; i++) {
                WebDriver d = browser();
                open.add(d);
                long t0 = System.nanoTime();
                d.get("http://127.0.0.1:" + httpPort + "/dashboard/");
                d.findElement(By.id("token")).sendKeys(adminToken);
                d.findElement(By.cssSelector("#signin button[type=submit]")).click();
                new WebDriverWait(d, Duration.ofMinutes(2), Duration.ofMillis(50)).until(x ->
                        Boolean.TRUE.equals(((JavascriptExecutor) x).executeScript(
                                "const counted = [...document.querySelectorAll('[data-test=phases] .stat b')]"
                                + ".reduce((n, b) => n + Number(b.textContent), 0);"
                                + "return document.querySelectorAll('table[data-test=nodes] tbody tr').length === "
                                + nodes + " && counted === " + pods + ";")));
                firstRender.add((System.nanoTime() - t0) / 1_000_000);
                if (i == 0) {
                    changeToScreen(d, pods, "one dashboard open", 0);
                }
                Object b = ((JavascriptExecutor) d).executeScript("return performance.getEntriesByType('navigation')"
                        + ".concat(performance.getEntriesByType('resource')).reduce((n, e) => n + (e.transferSize"
                        + " || e.encodedBodySize || 0), 0)");
                bytes.add(((Number) b).longValue());
            }
            System.out.printf(Locale.ROOT, "  first render (every node listed, every pod counted): first dashboard"
                    + " %,d ms, the %d after it %,d–%,d ms (median %,d ms)%n", firstRender.get(0), dashboards - 1,
                    firstRender.subList(1, firstRender.size()).stream().mapToLong(Long::longValue).min().orElse(0),
                    firstRender.subList(1, firstRender.size()).stream().mapToLong(Long::longValue).max().orElse(0),
                    firstRender.stream().sorted().toList().get(firstRender.size() / 2));
            System.out.printf(Locale.ROOT, "  transferred per dashboard for that (page, scripts, lists): %.1f MiB%n",
                    bytes.get(0) / 1024.0 / 1024);
            changeToScreen(open.get(0), pods, dashboards + " dashboards open", 10);
            measure("20 dashboards open, idle", 30, 0, pods);
            measure("20 dashboards open, 20 pod changes/s", 30, 20, pods);
        } finally {
            for (WebDriver d : open) {
                d.quit();
            }
            clients.shutdown();
        }
    }

    /**
     * From a write to the dashboard showing it: ten pods end (Succeeded) one after the other,
     * and each time the dashboard's count of Succeeded pods is awaited ({@code done} ended
     * before).
     */
    private void changeToScreen(WebDriver d, int pods, String title, int done) throws InterruptedException {
        List<Long> millis = new ArrayList<>();
        for (int i = done + 1; i <= done + 10; i++) {
            Pod p = admin.get(Pod.class, "dash-bench", "p" + (pods - i)).orElseThrow();
            p.getStatus().setPhase("Succeeded");
            long t0 = System.nanoTime();
            admin.updateStatus(p);
            String want = i + "\nSucceeded";
            new WebDriverWait(d, Duration.ofSeconds(30), Duration.ofMillis(10)).until(x ->
                    Boolean.TRUE.equals(((JavascriptExecutor) x).executeScript(
                            "const p = document.querySelector('[data-test=phases]');"
                            + "return p !== null && p.innerText.includes(arguments[0]);", want)));
            millis.add((System.nanoTime() - t0) / 1_000_000);
            Thread.sleep(200);
        }
        long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf(Locale.ROOT, "  a pod's change on screen (write → watch → render, 10 changes, %s):"
                + " median %d ms, max %d ms%n", title, sorted[sorted.length / 2], sorted[sorted.length - 1]);
    }

    private void measure(String title, int seconds, int changesPerSecond, int pods) throws Exception {
        Duration cpu0 = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        long t0 = System.nanoTime();
        int changed = 0;
        while (System.nanoTime() - t0 < seconds * 1_000_000_000L) {
            for (int i = 0; i < changesPerSecond; i++) {
                String name = "p" + ((changed++ * 7919) % pods);
                admin.patch(Pod.class, "dash-bench", name, "{\"metadata\":{\"labels\":{\"touched\":\"" + changed
                        + "\"}}}");
            }
            Thread.sleep(1000);
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        Duration cpu = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO).minus(cpu0);
        System.out.printf(Locale.ROOT, "  %s: server %.2f cores over %.0f s, %d connections established to it%n",
                title, cpu.toMillis() / 1000.0 / wall, wall, connections());
    }

    private int connections() throws Exception {
        Process p = new ProcessBuilder("ss", "-Htn", "state", "established", "( sport = :" + httpPort + " )")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return (int) out.lines().filter(l -> !l.isBlank()).count();
    }

    private static WebDriver browser() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,800");
        return new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(
                new File("/usr/bin/chromedriver")).build(), options);
    }

    private void node(int i) {
        String name = String.format(Locale.ROOT, "dash-node-%04d", i);
        Map<String, Quantity> capacity = Map.of("cpu", new Quantity("16"), "memory", new Quantity("64Gi"), "pods",
                new Quantity("110"));
        Node n = admin.create(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("topology.kubernetes.io/zone", "zone-" + (i % 3)).endMetadata().withNewSpec().endSpec()
                .build());
        n.setStatus(new NodeStatusBuilder().withCapacity(capacity).withAllocatable(capacity).addNewCondition()
                .withType("Ready").withStatus("True").withReason("KubeletReady").endCondition().build());
        admin.updateStatus(n);
    }

    private void pod(int i, int nodes) {
        Pod p = admin.create(new PodBuilder().withNewMetadata().withNamespace("dash-bench").withName("p" + i)
                .addToLabels("app", "bench").endMetadata().withNewSpec()
                .withNodeName(String.format(Locale.ROOT, "dash-node-%04d", i % nodes)).addNewContainer().withName("c")
                .withImage("nginx").withNewResources().addToRequests("cpu", new Quantity("100m")).endResources()
                .endContainer().endSpec().build());
        p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Running").build());
        admin.updateStatus(p);
    }

    private void parallel(int n, IntConsumer work) throws Exception {
        List<Future<?>> all = new ArrayList<>();
        int chunk = Math.max(1, n / 64);
        for (int from = 0; from < n; from += chunk) {
            int start = from;
            int end = Math.min(n, from + chunk);
            all.add(clients.submit(() -> {
                for (int i = start; i < end; i++) {
                    work.accept(i);
                }
            }));
        }
        for (Future<?> f : all) {
            f.get();
        }
    }
}
