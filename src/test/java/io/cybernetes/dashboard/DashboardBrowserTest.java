package io.cybernetes.dashboard;

import io.cybernetes.apiserver.Kubectl;
import io.cybernetes.apiserver.SimulatedClusterSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in real headless Chromium (Debian's {@code chromium} and
 * {@code chromium-driver}, paths given explicitly), against the application with its
 * scheduler, controllers and simulated nodes: signing in, a Deployment scaled with kubectl
 * converging on the page, a pending pod's why-breakdown, a team user seeing only its
 * namespace and told what is hidden, an action RBAC denies showing the 403, and the
 * revision diff of an edited Deployment. Screenshots go to {@code target/dashboard-*.png};
 * the browser's console must stay free of errors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardBrowserTest extends SimulatedClusterSupport {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    static final String NS = "dash";
    static final String TEAM = "dash-team-b";
    static final String OTHER = "dash-other";

    WebDriver driver;

    @BeforeAll
    void browserAndObjects() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,800");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        driver = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
                .build(), options);
        driver.manage().window().setSize(new Dimension(1280, 800));
        for (String ns : List.of(NS, TEAM, OTHER)) {
            assertThat(createNamespace(ns).code()).isIn(201, 409);
        }
        // bob may edit in his team's namespace and only view deployments' scale nowhere else
        assertThat(post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + TEAM + "/rolebindings", """
                {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"bob-views"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"kind":"User","name":"bob","apiGroup":"rbac.authorization.k8s.io"}]}""").code())
                .isIn(201, 409);
        for (String ns : List.of(TEAM, OTHER)) {
            assertThat(post("/apis/apps/v1/namespaces/" + ns + "/deployments", deployment(ns + "-app", 1, "nginx:1"))
                    .code()).isIn(201, 409);
        }
    }

    @AfterAll
    void closeBrowser() {
        if (driver != null) {
            driver.quit();
        }
    }

    @AfterEach
    void screenshotAndConsole(TestInfo test) throws IOException {
        File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Path to = Path.of("target", "dashboard-" + test.getTestMethod().orElseThrow().getName() + ".png");
        Files.createDirectories(to.getParent());
        Files.copy(shot.toPath(), to, StandardCopyOption.REPLACE_EXISTING);
        List<LogEntry> errors = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                // the page reports the server's refusals itself; the browser logs the failed requests too
                .filter(e -> !e.getMessage().contains("the server responded with a status of 403"))
                .toList();
        assertThat(errors).as("console errors").isEmpty();
        driver.manage().deleteAllCookies();
        ((org.openqa.selenium.JavascriptExecutor) driver).executeScript("sessionStorage.clear()");
    }

    static String deployment(String name, int replicas, String image) {
        return """
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME"},
                 "spec":{"replicas":REPLICAS,"selector":{"matchLabels":{"app":"NAME"}},
                  "template":{"metadata":{"labels":{"app":"NAME"}},
                   "spec":{"containers":[{"name":"c","image":"IMAGE","resources":{"requests":{"cpu":"10m"}}}]}}}}"""
                .replace("NAME", name).replace("REPLICAS", Integer.toString(replicas)).replace("IMAGE", image);
    }

    /** A wait that looks again when the page redrew an element between finding and reading it. */
    private WebDriverWait waiting() {
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
        // a row re-rendered by a watch event while it is typed into: the next try finds the new one
        wait.ignoring(org.openqa.selenium.ElementNotInteractableException.class);
        return wait;
    }

    private void signIn(String token, String namespace) {
        driver.get(url("/"));
        waiting().until(d -> d.getCurrentUrl().endsWith("/dashboard/"));
        waiting().until(d -> d.findElement(By.id("token")).isDisplayed());
        driver.findElement(By.id("token")).sendKeys(token);
        driver.findElement(By.id("signin-ns")).sendKeys(namespace);
        click(By.cssSelector("#signin button[type=submit]"));
        waiting().until(d -> d.findElement(By.id("user")).getText().startsWith("Signed in as"));
    }

    private void tab(String name) {
        click(By.cssSelector("#tabs button[data-tab='" + name + "']"));
    }

    /** Clicks the element, found again if the live page redrew it between finding and clicking. */
    private void click(By by) {
        waiting().until(d -> {
            d.findElement(by).click();
            return true;
        });
    }

    /** The element's text, read again if the page redrew it meanwhile (live pages redraw). */
    /** Types into the element, found again if the live page redrew it before the keys reached it. */
    private void press(By by, CharSequence keys) {
        waiting().until(d -> {
            d.findElement(by).sendKeys(keys);
            return true;
        });
    }

    private String text(String css) {
        return waiting().until(d -> d.findElement(By.cssSelector(css)).getText());
    }

    @Test
    void signingInShowsTheUserTheNodesAndThePods() {
        signIn(token(), "");
        assertThat(text("#user")).isEqualTo("Signed in as admin");
        waiting().until(d -> d.findElements(By.cssSelector("table[data-test=nodes] tbody tr")).size() >= 3);
        assertThat(text("table[data-test=nodes]")).contains("node-1", "node-2", "node-3", "Ready", "zone-a");
        assertThat(driver.findElements(By.cssSelector("[data-test=hidden]"))).as("the admin sees everything")
                .isEmpty();
    }

    @Test
    void aDeploymentScaledWithKubectlConvergesOnThePage() throws IOException {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", deployment("web", 2, "nginx:1")).code())
                .isIn(201, 409);
        signIn(token(), NS);
        tab("workloads");
        waiting().until(d -> d.findElements(By.cssSelector("tr[data-deployment='" + NS + "/web']")).size() == 1);
        Path home = Files.createDirectories(Path.of("target", "dashboard-kubectl"));
        Kubectl.Run scaled = new Kubectl(endpoints.adminKubeconfig(), home).run("scale", "deployment/web", "-n", NS,
                "--replicas=4");
        assertThat(scaled.exit()).as(scaled.all()).isZero();
        waiting().until(d -> d.findElement(By.cssSelector("tr[data-deployment='" + NS + "/web'] [data-test=counts]"))
                .getText().equals("4 / 4 / 4 / 4"));
    }

    @Test
    void servicesShowTheirEndpointsAndCronJobsTheirRuns() {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", deployment("shop", 2, "nginx:1")).code())
                .isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + NS + "/services", "{\"apiVersion\":\"v1\",\"kind\":\"Service\","
                + "\"metadata\":{\"name\":\"shop\"},\"spec\":{\"selector\":{\"app\":\"shop\"},\"ports\":[{\"port\":80}]}}")
                .code()).isIn(201, 409);
        assertThat(post("/apis/batch/v1/namespaces/" + NS + "/cronjobs", "{\"apiVersion\":\"batch/v1\",\"kind\":"
                + "\"CronJob\",\"metadata\":{\"name\":\"nightly\"},\"spec\":{\"schedule\":\"0 3 * * *\",\"suspend\":true,"
                + "\"jobTemplate\":{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"cybernetes.io/run-seconds\":"
                + "\"0.2\"}},\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}}}")
                .code()).isIn(201, 409);
        Kubectl.Run run = new Kubectl(endpoints.adminKubeconfig(), Path.of("target")).run("-n", NS, "create", "job",
                "nightly-now", "--from=cronjob/nightly");
        assertThat(run.exit()).as(run.all()).isZero();
        signIn(token(), NS);
        tab("workloads");
        waiting().until(d -> !d.findElements(By.cssSelector("tr[data-service='" + NS + "/shop'] [data-test=endpoints]"))
                .isEmpty() && d.findElement(By.cssSelector("tr[data-service='" + NS + "/shop'] [data-test=endpoints]"))
                .getText().startsWith("2 ready of 2"));
        waiting().until(d -> !d.findElements(By.cssSelector("tr[data-cronjob='" + NS + "/nightly'] [data-test=runs]"))
                .isEmpty() && d.findElement(By.cssSelector("tr[data-cronjob='" + NS + "/nightly'] [data-test=runs]"))
                .getText().contains("nightly-now Complete"));
        assertThat(text("tr[data-job='" + NS + "/nightly-now'] [data-test=completions]")).isEqualTo("1/1");
    }

    @Test
    void statefulSetsDaemonSetsClaimsAndAutoscalersShowTheirState() {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/statefulsets", """
                {"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},"spec":{"replicas":2,
                 "serviceName":"db","selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":
                 {"app":"db"}},"spec":{"containers":[{"name":"db","image":"postgres"}]}},"volumeClaimTemplates":[
                 {"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":
                 {"storage":"1Gi"}}}}]}}""").code()).isIn(201, 409);
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/daemonsets", """
                {"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent"},"spec":{"selector":
                 {"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},"spec":
                 {"containers":[{"name":"agent","image":"fluentd"}]}}}}""").code()).isIn(201, 409);
        assertThat(post("/apis/autoscaling/v2/namespaces/" + NS + "/horizontalpodautoscalers", """
                {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"db"},"spec":
                 {"scaleTargetRef":{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db"},"minReplicas":2,
                 "maxReplicas":4}}""").code()).isIn(201, 409);
        signIn(token(), NS);
        tab("workloads");
        waiting().until(d -> !d.findElements(By.cssSelector("tr[data-statefulset='" + NS + "/db'] [data-test=counts]"))
                .isEmpty() && d.findElement(By.cssSelector("tr[data-statefulset='" + NS + "/db'] [data-test=counts]"))
                .getText().equals("2 / 2"));
        waiting().until(d -> !d.findElements(By.cssSelector("tr[data-claim='" + NS + "/data-db-1'] [data-test=phase]"))
                .isEmpty() && d.findElement(By.cssSelector("tr[data-claim='" + NS + "/data-db-1'] [data-test=phase]"))
                .getText().equals("Bound"));
        waiting().until(d -> !d.findElements(By.cssSelector("tr[data-daemonset='" + NS + "/agent'] [data-test=counts]"))
                .isEmpty() && d.findElement(By.cssSelector("tr[data-daemonset='" + NS + "/agent'] [data-test=counts]"))
                .getText().matches("(\\d+) / \\1 / \\1 / \\1 / \\1") && !d.findElement(By.cssSelector(
                        "tr[data-daemonset='" + NS + "/agent'] [data-test=counts]")).getText().startsWith("0"));
        // the database's pods ask for no cpu: the autoscaler says why it cannot work out a count
        waiting().until(d -> !d.findElements(By.cssSelector("tr[data-hpa='" + NS + "/db']")).isEmpty()
                && d.findElement(By.cssSelector("tr[data-hpa='" + NS + "/db']")).getText().contains("missing request"));
        assertThat(text("tr[data-hpa='" + NS + "/db'] [data-test=targets]")).isEqualTo("cpu: <unknown>/80%");
    }

    @Test
    void aPendingPodShowsWhyItWaits() {
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"too-big"},
                 "spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"500"}}}]}}""")
                .code()).isIn(201, 409);
        signIn(token(), NS);
        tab("scheduler");
        By why = By.cssSelector("tr[data-pending='" + NS + "/too-big'] button[data-action=why]");
        waiting().until(d -> !d.findElements(why).isEmpty()
                && d.findElement(By.cssSelector("tr[data-pending='" + NS + "/too-big']")).getText()
                .contains("Insufficient cpu"));
        click(why);
        waiting().until(d -> !d.findElements(By.cssSelector("[data-test=why]")).isEmpty());
        String breakdown = text("[data-test=why]");
        assertThat(breakdown).contains("node-1", "node-2", "node-3", "NodeResourcesFit", "Insufficient cpu");
    }

    @Test
    void aTeamUserSeesOnlyItsNamespaceAndIsToldWhatIsHidden() {
        signIn("bob-token", "");
        waiting().until(d -> d.findElements(By.cssSelector("[data-test=hidden]")).size() >= 2);
        assertThat(text("#notices")).contains("Hidden: pods in all namespaces",
                "User \"bob\" cannot list resource \"pods\" in API group \"\" at the cluster scope");
        WebElement scope = driver.findElement(By.id("scope"));
        scope.clear();
        scope.sendKeys(TEAM, "\n");
        tab("workloads");
        waiting().until(d -> d.findElements(By.cssSelector("tr[data-deployment='" + TEAM + "/" + TEAM + "-app']"))
                .size() == 1);
        assertThat(driver.getPageSource()).doesNotContain(OTHER + "-app");
        scope = driver.findElement(By.id("scope"));
        scope.clear();
        scope.sendKeys(OTHER, "\n");
        waiting().until(d -> d.findElement(By.id("notices")).getText().contains("Hidden: deployments in " + OTHER));
        assertThat(driver.getPageSource()).doesNotContain(OTHER + "-app\"");
    }

    @Test
    void anActionRbacDeniesShowsThe403() {
        signIn("bob-token", TEAM);
        tab("workloads");
        By scale = By.cssSelector("tr[data-deployment='" + TEAM + "/" + TEAM + "-app'] button[data-action=scale]");
        waiting().until(d -> !d.findElements(scale).isEmpty());
        click(scale);
        waiting().until(d -> !d.findElements(By.cssSelector("[data-test=notice]")).isEmpty());
        assertThat(text("[data-test=notice]")).contains("Scale failed", "403 Forbidden",
                "User \"bob\" cannot patch resource \"deployments/scale\" in API group \"apps\" in the namespace \""
                        + TEAM + "\"");
    }

    @Test
    void theRevisionDiffOfAnEditedDeploymentShowsTheChange() {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", deployment("edited", 1, "nginx:1.27"))
                .code()).isIn(201, 409);
        assertThat(patch("/apis/apps/v1/namespaces/" + NS + "/deployments/edited", "application/merge-patch+json",
                "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.28\"}]}}}}")
                .code()).isEqualTo(200);
        signIn(token(), NS);
        tab("workloads");
        By open = By.cssSelector("tr[data-deployment='" + NS + "/edited'] a.obj");
        waiting().until(d -> !d.findElements(open).isEmpty());
        click(open);
        waiting().until(d -> !d.findElements(By.cssSelector("[data-test=diff]")).isEmpty());
        // from the revision before the edit to the latest: the image changed
        waiting().until(d -> {
            new org.openqa.selenium.support.ui.Select(d.findElement(By.id("diff-from"))).selectByIndex(0);
            return true;
        });
        waiting().until(d -> d.findElement(By.id("diff")).getText().lines()
                .anyMatch(l -> l.startsWith("+") && l.trim().endsWith("image: nginx:1.28")));
        assertThat(text("#diff").lines()).anyMatch(l -> l.startsWith("-") && l.trim().endsWith("image: nginx:1.27"))
                .noneMatch(l -> l.contains("progressDeadlineSeconds")).as("only what changed");
        assertThat(text("[data-test=yaml]")).contains("image: nginx:1.28");
    }

    @Test
    void controllersWithChartsByKeyboardAndInANarrowWindow() throws IOException {
        signIn(token(), "");
        press(By.cssSelector("#tabs button[data-tab='controllers']"), org.openqa.selenium.Keys.ENTER);
        waiting().until(d -> d.findElements(By.cssSelector("table[data-test=controllers] tbody tr")).size() >= 5);
        assertThat(text("table[data-test=controllers]")).contains("deployment", "replicaset", "garbage-collector",
                "RECONCILES/S", "P99 MS", "LAST ERROR");
        waiting().until(d -> d.findElements(By.cssSelector("table[data-test=priority-levels] tbody tr")).size() >= 8);
        assertThat(text("tr[data-level='global-default']")).contains("global-default");
        assertThat(text("tr[data-level='global-default'] [data-test=seats]")).matches("\\d+ / \\d+");
        assertThat(text("tr[data-level='exempt'] [data-test=seats]")).isEqualTo("exempt");
        waiting().until(d -> !d.findElements(By.cssSelector("#chart-reconcileRate canvas")).isEmpty()
                && !d.findElements(By.cssSelector("#chart-scheduledRate canvas")).isEmpty());
        driver.manage().window().setSize(new Dimension(420, 800));
        press(By.cssSelector("#tabs button[data-tab='events']"), org.openqa.selenium.Keys.ENTER);
        waiting().until(d -> !d.findElements(By.cssSelector("table[data-test=events]")).isEmpty());
        // the events tab re-renders on each watch event: ask again when the element was replaced meanwhile
        waiting().until(d -> d.findElement(By.id("ev-type")).isDisplayed());
        File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), Path.of("target", "dashboard-narrow-events.png"), StandardCopyOption.REPLACE_EXISTING);
        driver.manage().window().setSize(new Dimension(1280, 800));
    }

    @Test
    void actionsTheUserMayTakeGoThrough() {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", deployment("acted", 1, "nginx:1")).code())
                .isIn(201, 409);
        signIn(token(), "");
        By cordon = By.cssSelector("tr[data-node='node-2'] button[data-action]");
        waiting().until(d -> !d.findElements(cordon).isEmpty());
        click(cordon);
        waiting().until(d -> "true".equals(get("/api/v1/nodes/node-2").text("spec.unschedulable")));
        waiting().until(d -> d.findElement(By.cssSelector("tr[data-node='node-2']")).getText().contains("cordoned"));
        click(cordon);
        waiting().until(d -> get("/api/v1/nodes/node-2").text("spec.unschedulable") == null);

        tab("workloads");
        By row = By.cssSelector("tr[data-deployment='" + NS + "/acted']");
        waiting().until(d -> !d.findElements(row).isEmpty() && d.findElement(row).getText().contains("1 / 1 / 1 / 1"));
        By replicas = By.cssSelector("tr[data-deployment='" + NS + "/acted'] input[type=number]");
        waiting().until(d -> {
            WebElement input = d.findElement(replicas);
            input.clear();
            input.sendKeys("2");
            return true;
        });
        click(By.cssSelector("tr[data-deployment='" + NS + "/acted'] button[data-action=scale]"));
        waiting().until(d -> get("/apis/apps/v1/namespaces/" + NS + "/deployments/acted").json().path("spec")
                .path("replicas").asInt() == 2);
        waiting().until(d -> d.findElement(row).getText().contains("2 / 2 / 2 / 2"));
        click(By.cssSelector("tr[data-deployment='" + NS + "/acted'] button[data-action=restart]"));
        waiting().until(d -> get("/apis/apps/v1/namespaces/" + NS + "/deployments/acted").json().path("spec")
                .path("template").path("metadata").path("annotations").has("kubectl.kubernetes.io/restartedAt"));
        click(By.cssSelector("details[data-key='" + NS + "/acted'] summary"));
        By delete = By.cssSelector("details[data-key='" + NS + "/acted'] button[data-action=delete-pod]");
        waiting().until(d -> !d.findElements(delete).isEmpty());
        String pod = waiting().until(d -> d.findElement(delete).getAttribute("data-key")).split("/")[1];
        click(delete);
        try {
            waiting().until(d -> get("/api/v1/namespaces/" + NS + "/pods/" + pod).code() == 404);
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("pod " + pod + " was not let go by its node: " + get("/api/v1/namespaces/" + NS
                    + "/pods/" + pod).body() + "\nnodes: " + get("/api/v1/nodes").json().path("items").findValues(
                    "conditions"), e);
        }
    }

    @Test
    void eventsFilterAndAPodsOwnerChain() {
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", deployment("owned", 1, "nginx:1")).code())
                .isIn(201, 409);
        assertThat(post("/api/v1/namespaces/" + NS + "/pods", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"never-fits"},
                 "spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"900"}}}]}}""")
                .code()).isIn(201, 409);
        signIn(token(), NS);
        tab("events");
        waiting().until(d -> text("table[data-test=events]").contains("FailedScheduling")
                && text("table[data-test=events]").contains("Scheduled"));
        waiting().until(d -> {
            new org.openqa.selenium.support.ui.Select(d.findElement(By.id("ev-type"))).selectByVisibleText("Warning");
            return true;
        });
        waiting().until(d -> !text("table[data-test=events] tbody").contains("Normal"));
        assertThat(text("table[data-test=events] tbody")).contains("never-fits");
        press(By.id("ev-object"), "Pod/owned");
        waiting().until(d -> !text("table[data-test=events] tbody").contains("never-fits"));

        tab("workloads");
        click(By.cssSelector("details[data-key='" + NS + "/owned'] summary"));
        By podLink = By.cssSelector("details[data-key='" + NS + "/owned'] a.obj[data-detail^='Pod|']");
        waiting().until(d -> !d.findElements(podLink).isEmpty());
        click(podLink);
        waiting().until(d -> text("#detail-content").contains("Owners"));
        waiting().until(d -> text("#detail-content").matches("(?s).*Owners\\s+owned-[a-z0-9]+ → owned.*"));
        assertThat(text("#detail-content")).contains("Successfully assigned " + NS + "/owned-");
    }

    @Test
    void aPodsDetailShowsItsLogFollowedLive() {
        String chatty = deployment("chatty", 1, "nginx").replace("\"template\":{\"metadata\":{",
                "\"template\":{\"metadata\":{\"annotations\":{\"cybernetes.io/log-script\":\"tick {n}\\nsleep 200ms"
                        + "\\nrepeat\"},");
        assertThat(post("/apis/apps/v1/namespaces/" + NS + "/deployments", chatty).code()).isIn(201, 409);
        signIn(token(), NS);
        tab("workloads");
        click(By.cssSelector("details[data-key='" + NS + "/chatty'] summary"));
        By podLink = By.cssSelector("details[data-key='" + NS + "/chatty'] a.obj[data-detail^='Pod|']");
        waiting().until(d -> !d.findElements(podLink).isEmpty());
        waiting().until(d -> text("details[data-key='" + NS + "/chatty']").contains("Running"));
        click(podLink);
        waiting().until(d -> text("pre[data-test=pod-log]").contains("[cybernetes] started container c (image nginx)"));
        String first = text("pre[data-test=pod-log]");
        // followed: lines printed after the view opened arrive without a reload
        waiting().until(d -> text("pre[data-test=pod-log]").length() > first.length() + 20);
        assertThat(text("pre[data-test=pod-log]")).containsPattern("tick \\d+");
        click(By.id("detail-close"));
    }
}
