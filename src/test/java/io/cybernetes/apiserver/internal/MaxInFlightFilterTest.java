package io.cybernetes.apiserver.internal;

import io.cybernetes.apiserver.ApiServerProperties;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceRegistry;
import io.cybernetes.apiserver.internal.flowcontrol.FlowControl;
import io.cybernetes.apiserver.internal.handlers.WatchStreamer;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.RequestAttributesResolver;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import io.cybernetes.auth.UserInfo;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class MaxInFlightFilterTest {

    /** Tenants share one seat and are rejected past it; admins are exempt; nodes have a level of their own. */
    static final String CONFIG = """
            levels:
            - metadata: {name: exempt, uid: pl-exempt}
              spec: {type: Exempt}
            - metadata: {name: tenants, uid: pl-tenants}
              spec: {type: Limited, limited: {nominalConcurrencyShares: 1, lendablePercent: 0,
                     borrowingLimitPercent: 0, limitResponse: {type: Reject}}}
            - metadata: {name: components, uid: pl-components}
              spec: {type: Limited, limited: {nominalConcurrencyShares: 1, lendablePercent: 0,
                     borrowingLimitPercent: 0, limitResponse: {type: Reject}}}
            schemas:
            - metadata: {name: exempt, uid: fs-exempt}
              spec: {priorityLevelConfiguration: {name: exempt}, matchingPrecedence: 1,
                     rules: [{subjects: [{kind: Group, group: {name: "system:masters"}}],
                              resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true,
                                               namespaces: ["*"]}]}]}
            - metadata: {name: components, uid: fs-components}
              spec: {priorityLevelConfiguration: {name: components}, matchingPrecedence: 100,
                     distinguisherMethod: {type: ByUser},
                     rules: [{subjects: [{kind: Group, group: {name: "system:nodes"}},
                                         {kind: User, user: {name: "system:kube-scheduler"}}],
                              resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true,
                                               namespaces: ["*"]}]}]}
            - metadata: {name: tenants, uid: fs-tenants}
              spec: {priorityLevelConfiguration: {name: tenants}, matchingPrecedence: 1000,
                     distinguisherMethod: {type: ByUser},
                     rules: [{subjects: [{kind: Group, group: {name: "system:authenticated"}}],
                              resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true,
                                               namespaces: ["*"]}]}]}
            """;

    private static MaxInFlightFilter filter(int limit) {
        FlowControl flowControl = new FlowControl(limit, 50_000_000L);
        JsonNode config = Json.YAML.readTree(CONFIG);
        List<ObjectNode> levels = new ArrayList<>();
        config.path("levels").forEach(n -> levels.add((ObjectNode) n));
        List<ObjectNode> schemas = new ArrayList<>();
        config.path("schemas").forEach(n -> schemas.add((ObjectNode) n));
        flowControl.configure(schemas, levels);
        RequestAttributesResolver resolver = (request, user) -> RequestAttributes.resource(user,
                "true".equals(request.getParameter("watch")) ? "watch" : "get", "", "pods", "", "", "");
        return new MaxInFlightFilter(limit(limit), flowControl, resolver, ResourceRegistry.builtIn(), null);
    }

    private static ApiServerProperties limit(int n) {
        return new ApiServerProperties(0, "127.0.0.1", 1024, n, Duration.ofMinutes(1), Duration.ofSeconds(1),
                Duration.ofMillis(50), Duration.ofSeconds(60), 65536, n, null);
    }

    private static MockHttpServletRequest as(UserInfo user) {
        MockHttpServletRequest r = new MockHttpServletRequest("GET", "/api/v1/pods");
        r.setAttribute(UserInfo.REQUEST_ATTRIBUTE, user);
        return r;
    }

    /** Holds the filter's one permit for {@code user} until the returned latch is counted down. */
    private static CountDownLatch hold(MaxInFlightFilter filter, UserInfo user) throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try {
                filter.doFilter(as(user), new MockHttpServletResponse(), (req, res) -> {
                    inside.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        holder.setDaemon(true);
        holder.start();
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    private static int status(MaxInFlightFilter filter, UserInfo user) throws Exception {
        MockHttpServletResponse res = new MockHttpServletResponse();
        filter.doFilter(as(user), res, (req, r) -> ((MockHttpServletResponse) r).setStatus(200));
        return res.getStatus();
    }

    @Test
    void whenTenantsFillTheirLevelAdministratorsAndTheControlPlaneAreStillServed() throws Exception {
        MaxInFlightFilter filter = filter(2);
        UserInfo alice = UserInfo.authenticated("alice", "", List.of("team-a", UserInfo.AUTHENTICATED));
        CountDownLatch release = hold(filter, alice);
        assertThat(status(filter, UserInfo.authenticated("bob", "", List.of("team-b")))).isEqualTo(429);
        assertThat(status(filter, UserInfo.authenticated("admin", "", List.of(UserInfo.MASTERS)))).isEqualTo(200);
        UserInfo node = UserInfo.authenticated("system:node:n1", "", List.of(UserInfo.NODES));
        assertThat(status(filter, node)).isEqualTo(200);
        assertThat(status(filter, UserInfo.authenticated("system:kube-scheduler", "", List.of()))).isEqualTo(200);

        CountDownLatch releaseNode = hold(filter, node);
        assertThat(status(filter, UserInfo.authenticated("system:kube-scheduler", "", List.of())))
                .as("the components share a level of their own").isEqualTo(429);
        releaseNode.countDown();
        release.countDown();
    }

    @Test
    void aRequestPastTheLimitIs429WithRetryAfterAndSoIsAWatch() throws Exception {
        MaxInFlightFilter filter = filter(2);
        UserInfo alice = UserInfo.authenticated("alice", "", List.of("team-a", UserInfo.AUTHENTICATED));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try {
                filter.doFilter(as(alice), new MockHttpServletResponse(),
                        (req, res) -> {
                            inside.countDown();
                            try {
                                release.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        holder.start();
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();

        MockHttpServletResponse refused = new MockHttpServletResponse();
        filter.doFilter(as(alice), refused, (req, res) -> {
            throw new AssertionError("must not be served");
        });
        assertThat(refused.getStatus()).isEqualTo(429);
        assertThat(refused.getHeader("X-Kubernetes-PF-FlowSchema-UID")).isEqualTo("fs-tenants");
        assertThat(refused.getHeader("X-Kubernetes-PF-PriorityLevel-UID")).isEqualTo("pl-tenants");
        assertThat(refused.getHeader("Retry-After")).isEqualTo("1");
        assertThat(refused.getContentAsString()).contains("\"kind\":\"Status\"", "\"reason\":\"TooManyRequests\"");

        MockHttpServletRequest watch = as(alice);
        watch.setParameter("watch", "true");
        MockHttpServletResponse watched = new MockHttpServletResponse();
        filter.doFilter(watch, watched, (req, res) -> {
            throw new AssertionError("a watch waits for seats like any request");
        });
        assertThat(watched.getStatus()).isEqualTo(429);

        release.countDown();
        holder.join(10_000);
        MockHttpServletResponse after = new MockHttpServletResponse();
        boolean[] servedAfter = {false};
        filter.doFilter(as(alice), after, (req, res) -> servedAfter[0] = true);
        assertThat(servedAfter[0]).isTrue();
    }

    @Test
    void aWatchHoldsItsSeatUntilItsInitialEventsAreSentAndStreamsOnWithout() throws Exception {
        MaxInFlightFilter filter = filter(2);
        UserInfo alice = UserInfo.authenticated("alice", "", List.of("team-a", UserInfo.AUTHENTICATED));
        UserInfo bob = UserInfo.authenticated("bob", "", List.of("team-b", UserInfo.AUTHENTICATED));
        // the transport takes the seats along when the watch starts streaming, as ServletCall does
        Runnable[] initialized = new Runnable[1];
        MockHttpServletRequest watch = as(alice);
        watch.setParameter("watch", "true");
        MockHttpServletResponse streaming = new MockHttpServletResponse();
        filter.doFilter(watch, streaming, (req, res) -> {
            initialized[0] = (Runnable) req.getAttribute(WatchStreamer.INITIALIZATION);
            req.removeAttribute(WatchStreamer.INITIALIZATION);
        });
        assertThat(streaming.getHeader("X-Kubernetes-PF-PriorityLevel-UID")).isEqualTo("pl-tenants");
        assertThat(initialized[0]).isNotNull();
        assertThat(status(filter, bob)).as("the initial events are still being sent").isEqualTo(429);
        initialized[0].run();
        initialized[0].run();
        assertThat(status(filter, bob)).as("initialized, the watch streams on without a seat").isEqualTo(200);
        assertThat(status(filter, bob)).as("given back once only").isEqualTo(200);

        // a watch that never starts streaming (refused, expired) gives its seat back when its request ends
        MockHttpServletRequest refused = as(alice);
        refused.setParameter("watch", "true");
        filter.doFilter(refused, new MockHttpServletResponse(), (req, res) ->
                ((MockHttpServletResponse) res).setStatus(410));
        assertThat(status(filter, bob)).isEqualTo(200);
    }

    @Test
    void aListTakesSeatsByTheObjectsItGoesThroughAsKubernetesEstimates() {
        long stored = 50_000;
        assertThat(seats(false, "", stored)).as("served from the watch cache: all stored, by the hundred")
                .isEqualTo(500);
        assertThat(seats(false, "limit=500", stored)).as("a limit does not shorten a pass over the cache")
                .isEqualTo(500);
        assertThat(seats(false, "limit=500&resourceVersion=0", stored)).isEqualTo(500);
        assertThat(seats(false, "limit=100&continue=abc", stored)).as("from storage: twice the limit").isEqualTo(2);
        assertThat(seats(false, "limit=100&resourceVersion=7", stored)).as("the legacy exact match").isEqualTo(2);
        assertThat(seats(false, "limit=100&resourceVersion=7&resourceVersionMatch=Exact", stored)).isEqualTo(2);
        assertThat(seats(false, "limit=100&continue=abc&labelSelector=app%3Dweb", stored))
                .as("from storage with a selector: all stored and the limit").isEqualTo(501);
        assertThat(seats(false, "fieldSelector=metadata.name%3Dweb", stored)).as("one object by name").isEqualTo(1);
        assertThat(seats(false, "fieldSelector=status.phase%3DRunning", stored)).isEqualTo(500);
        assertThat(seats(false, "limit=-1&resourceVersion=7", stored)).as("no limit: not the legacy exact match")
                .isEqualTo(500);
        assertThat(seats(false, "limit=many", 10)).as("options bound to fail take the most").isEqualTo(10_000);
        assertThat(seats(false, "", 250)).isEqualTo(3);
        assertThat(seats(false, "", 0)).isEqualTo(1);
        assertThat(MaxInFlightFilter.listSeats(false, p -> null, () -> stored, 10)).as("never past the level's most")
                .isEqualTo(10);
        assertThat(seats(true, "", stored)).as("a classic watch").isEqualTo(1);
        assertThat(seats(true, "sendInitialEvents=true&resourceVersionMatch=NotOlderThan", stored))
                .as("a watch-list goes through the cache like a list").isEqualTo(500);
    }

    private static int seats(boolean watch, String query, long stored) {
        java.util.Map<String, String> params = new java.util.HashMap<>();
        for (String pair : query.split("&")) {
            if (!pair.isEmpty()) {
                String[] kv = pair.split("=", 2);
                params.put(kv[0], java.net.URLDecoder.decode(kv[1], java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return MaxInFlightFilter.listSeats(watch, params::get, () -> stored, 10_000);
    }

    @Test
    void streamsHaveALimitOfTheirOwnAndAnUpgradedSessionHoldsItsPermitUntilItEnds() throws Exception {
        MaxInFlightFilter filter = filter(1);
        UserInfo alice = UserInfo.authenticated("alice", "", List.of("team-a", UserInfo.AUTHENTICATED));
        // an exec upgraded to a session: the request returns, the session goes on
        Runnable[] endSession = new Runnable[1];
        MockHttpServletRequest exec = as(alice);
        exec.setRequestURI("/api/v1/namespaces/ns/pods/p/exec");
        MockHttpServletResponse upgraded = new MockHttpServletResponse();
        filter.doFilter(exec, upgraded, (req, res) -> endSession[0] = LongRunningPermit.handOff(
                (jakarta.servlet.http.HttpServletRequest) req));
        assertThat(upgraded.getStatus()).isEqualTo(200);
        // while it lasts, no other stream gets in; ordinary requests do
        MockHttpServletRequest log = as(alice);
        log.setRequestURI("/api/v1/namespaces/ns/pods/p/log");
        MockHttpServletResponse refused = new MockHttpServletResponse();
        filter.doFilter(log, refused, (req, res) -> ((MockHttpServletResponse) res).setStatus(200));
        assertThat(refused.getStatus()).isEqualTo(429);
        assertThat(status(filter, alice)).isEqualTo(200);
        // the session ends (twice, harmlessly): the permit is back
        endSession[0].run();
        endSession[0].run();
        MockHttpServletResponse served = new MockHttpServletResponse();
        filter.doFilter(log, served, (req, res) -> ((MockHttpServletResponse) res).setStatus(200));
        assertThat(served.getStatus()).isEqualTo(200);
        MockHttpServletResponse again = new MockHttpServletResponse();
        filter.doFilter(log, again, (req, res) -> ((MockHttpServletResponse) res).setStatus(200));
        assertThat(again.getStatus()).as("a log stream gives its permit back when its request ends").isEqualTo(200);
    }
}
