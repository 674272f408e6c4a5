package io.cybernetes.apiserver.internal.flowcontrol;

import io.cybernetes.api.Json;
import io.cybernetes.auth.RequestAttributes;
import io.cybernetes.auth.UserInfo;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class FlowControlTest {

    static ObjectNode level(String name, String limited) {
        return (ObjectNode) Json.YAML.readTree("{metadata: {name: " + name + ", uid: pl-" + name + "}, spec: "
                + (limited == null ? "{type: Exempt}" : "{type: Limited, limited: " + limited + "}") + "}");
    }

    static ObjectNode schema(String name, String level, int precedence, String distinguisher, String subjects,
                             String rules) {
        return (ObjectNode) Json.YAML.readTree("{metadata: {name: " + name + ", uid: fs-" + name + "}, spec: {"
                + "priorityLevelConfiguration: {name: " + level + "}, matchingPrecedence: " + precedence
                + (distinguisher == null ? "" : ", distinguisherMethod: {type: " + distinguisher + "}")
                + ", rules: [{subjects: " + subjects + ", " + rules + "}]}}");
    }

    static final String ALL = "resourceRules: [{verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true,"
            + " namespaces: ['*']}], nonResourceRules: [{verbs: ['*'], nonResourceURLs: ['*']}]";

    static RequestAttributes get(UserInfo user, String resource, String namespace) {
        return RequestAttributes.resource(user, "get", "", resource, "", namespace, "x");
    }

    @Test
    void theFirstMatchingSchemaByPrecedenceClassifiesAndItsDistinguisherNamesTheFlow() {
        FlowControl fc = new FlowControl(100, TimeUnit.SECONDS.toNanos(1));
        fc.configure(List.of(
                schema("catch-all", "low", 10000, "ByUser", "[{kind: Group, group: {name: 'system:authenticated'}}]", ALL),
                schema("ops", "high", 100, "ByNamespace", "[{kind: Group, group: {name: ops}}]",
                        "resourceRules: [{verbs: [get], apiGroups: [''], resources: [pods, pods/log], namespaces: [prod]}]"),
                schema("robots", "high", 200, null,
                        "[{kind: ServiceAccount, serviceAccount: {namespace: ci, name: '*'}}]", ALL),
                schema("health", "high", 50, null, "[{kind: Group, group: {name: '*'}}]",
                        "nonResourceRules: [{verbs: [get], nonResourceURLs: ['/healthz', '/debug/*']}]")),
                List.of(level("high", "{nominalConcurrencyShares: 10, limitResponse: {type: Reject}}"),
                        level("low", "{nominalConcurrencyShares: 10, limitResponse: {type: Reject}}")));
        UserInfo op = UserInfo.authenticated("olga", "", List.of("ops"));
        FlowControl.Classification c = fc.classify(get(op, "pods", "prod"));
        assertThat(c.flowSchema()).isEqualTo("ops");
        assertThat(c.priorityLevel()).isEqualTo("high");
        assertThat(c.flowSchemaUid()).isEqualTo("fs-ops");
        assertThat(c.flow()).isEqualTo("ops/prod");
        assertThat(fc.classify(get(op, "pods", "dev")).flowSchema()).as("not its namespace").isEqualTo("catch-all");
        assertThat(fc.classify(get(op, "secrets", "prod")).flow()).isEqualTo("catch-all/olga");
        UserInfo robot = UserInfo.serviceAccount("ci", "builder", "u1");
        assertThat(fc.classify(get(robot, "pods", "prod")).flowSchema()).isEqualTo("robots");
        assertThat(fc.classify(get(UserInfo.serviceAccount("other", "b", "u2"), "pods", "x")).flowSchema())
                .isEqualTo("catch-all");
        assertThat(fc.classify(RequestAttributes.nonResource(op, "get", "/debug/pprof")).flowSchema())
                .isEqualTo("health");
        assertThat(fc.classify(RequestAttributes.nonResource(op, "get", "/metrics")).flowSchema())
                .isEqualTo("catch-all");
    }

    private static FlowControl oneLevel(int seats, String limitResponse) {
        FlowControl fc = new FlowControl(seats, TimeUnit.SECONDS.toNanos(10));
        fc.configure(List.of(schema("all", "only", 100, "ByUser", "[{kind: Group, group: {name: '*'}}]", ALL)),
                List.of(level("only", "{nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: "
                        + limitResponse + "}")));
        return fc;
    }

    private static FlowControl.Classification as(FlowControl fc, String user) {
        return fc.classify(get(UserInfo.authenticated(user, "", List.of()), "pods", "ns"));
    }

    @Test
    void aFlowFloodingItsQueueDoesNotKeepAnotherFlowWaitingBehindIt() throws Exception {
        FlowControl fc = oneLevel(1, "{type: Queue, queuing: {queues: 16, handSize: 1, queueLengthLimit: 20}}");
        FlowControl.Ticket held = fc.acquire(as(fc, "holder"), 1);
        assertThat(held).isNotNull();
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        // the flooding flow queues five requests; a second flow, in another queue, then one
        String other = "quiet";
        FlowControl.Level level = fc.levelForTest("only");
        for (int i = 0; level.shuffleShard("all/" + other) == level.shuffleShard("all/flood"); i++) {
            other = "quiet-" + i;
        }
        for (String user : List.of("flood", "flood", "flood", "flood", "flood", other)) {
            CountDownLatch queued = new CountDownLatch(1);
            Thread t = new Thread(() -> {
                try {
                    queued.countDown();
                    FlowControl.Ticket ticket = fc.acquire(as(fc, user), 1);
                    order.add(user);
                    fc.release(ticket);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            threads.add(t);
            queued.await();
            for (int i = 0; i < 200 && fc.waitingForTest("only") < threads.size(); i++) {
                Thread.sleep(5);
            }
        }
        assertThat(fc.waitingForTest("only")).isEqualTo(6);
        fc.release(held);
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertThat(order).hasSize(6);
        assertThat(order.indexOf(other)).as("served by turns, not after the whole flood: " + order).isLessThan(2);
    }

    @Test
    void aFullQueueARejectingLevelAndAWaitTooLongAre429s() throws Exception {
        FlowControl rejecting = oneLevel(1, "{type: Reject}");
        FlowControl.Ticket held = rejecting.acquire(as(rejecting, "a"), 1);
        assertThat(rejecting.acquire(as(rejecting, "b"), 1)).as("a level that rejects does not queue").isNull();
        rejecting.release(held);
        assertThat(rejecting.acquire(as(rejecting, "b"), 1)).isNotNull();

        FlowControl queuing = new FlowControl(1, TimeUnit.MILLISECONDS.toNanos(100));
        queuing.configure(List.of(schema("all", "only", 100, "ByUser", "[{kind: Group, group: {name: '*'}}]", ALL)),
                List.of(level("only", "{nominalConcurrencyShares: 1, limitResponse: {type: Queue, queuing: {queues:"
                        + " 1, handSize: 1, queueLengthLimit: 1}}}")));
        FlowControl.Ticket first = queuing.acquire(as(queuing, "a"), 1);
        Thread waiter = new Thread(() -> {
            try {
                queuing.acquire(as(queuing, "b"), 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        for (int i = 0; i < 200 && queuing.waitingForTest("only") == 0; i++) {
            Thread.sleep(5);
        }
        assertThat(queuing.acquire(as(queuing, "c"), 1)).as("the queue is full").isNull();
        waiter.join(5_000);
        assertThat(queuing.waitingForTest("only")).as("the wait timed out and left the queue").isZero();
        queuing.release(first);
        StringBuilder metrics = new StringBuilder();
        io.cybernetes.api.PrometheusText out = new io.cybernetes.api.PrometheusText();
        queuing.collect(out);
        metrics.append(out.text());
        assertThat(metrics).contains("apiserver_flowcontrol_rejected_requests_total{flow_schema=\"all\","
                + "priority_level=\"only\",reason=\"queue-full\"} 1");
        assertThat(metrics).contains("reason=\"time-out\"} 1");
    }

    @Test
    void aBusyLevelBorrowsWhatAnotherMayLendWithinItsBorrowingLimit() throws Exception {
        FlowControl fc = new FlowControl(10, TimeUnit.MILLISECONDS.toNanos(50));
        fc.configure(List.of(
                        schema("busy", "busy", 100, "ByUser", "[{kind: User, user: {name: busy}}]", ALL),
                        schema("stingy", "stingy", 100, "ByUser", "[{kind: User, user: {name: stingy}}]", ALL),
                        schema("idle", "idle", 200, "ByUser", "[{kind: Group, group: {name: '*'}}]", ALL)),
                List.of(level("busy", "{nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: {type: Reject}}"),
                        level("stingy", "{nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0,"
                                + " limitResponse: {type: Reject}}"),
                        level("idle", "{nominalConcurrencyShares: 3, lendablePercent: 100, limitResponse: {type: Reject}}")));
        // 10 seats by shares 1:1:3 → busy 2, stingy 2, idle 6 (all of which idle may lend)
        List<FlowControl.Ticket> busy = new ArrayList<>();
        FlowControl.Ticket t;
        while ((t = fc.acquire(as(fc, "busy"), 1)) != null) {
            busy.add(t);
        }
        assertThat(busy).as("its own 2 seats and the 6 idle lends").hasSize(8);
        assertThat(busy.stream().filter(FlowControl.Ticket::borrowed).count()).isEqualTo(6);
        List<FlowControl.Ticket> stingy = new ArrayList<>();
        while ((t = fc.acquire(as(fc, "stingy"), 1)) != null) {
            stingy.add(t);
        }
        assertThat(stingy).as("a borrowing limit of 0 keeps a level to its own seats").hasSize(2);
        assertThat(fc.acquire(as(fc, "someone"), 1)).as("lent seats in use: no level runs past the server's 10")
                .isNull();
        busy.forEach(fc::release);
        stingy.forEach(fc::release);
        assertThat(fc.dumpPriorityLevels()).contains("busy, 0, true, 0, 0, 2, 0, 0");
    }

    @Test
    void requestsWaitingWhenTheirLevelChangesAreMovedOrAnsweredAndNothingLeaks() throws Exception {
        FlowControl fc = new FlowControl(1, TimeUnit.MILLISECONDS.toNanos(300), 2);
        List<ObjectNode> schemas = List.of(schema("all", "only", 100, "ByUser", "[{kind: Group, group: {name: '*'}}]",
                ALL));
        fc.configure(schemas, List.of(level("only", "{nominalConcurrencyShares: 1, limitResponse: {type: Queue,"
                + " queuing: {queues: 4, handSize: 2, queueLengthLimit: 5}}}")));
        FlowControl.Ticket held = fc.acquire(as(fc, "holder"), 1);
        List<Object> outcomes = Collections.synchronizedList(new ArrayList<>());
        Thread first = waiter(fc, "a", outcomes);
        Thread second = waiter(fc, "b", outcomes);
        for (int i = 0; i < 200 && fc.waitingForTest("only") < 2; i++) {
            Thread.sleep(5);
        }
        assertThat(fc.acquire(as(fc, "c"), 1)).as("no more wait than the threads allow").isNull();
        // the queues change under the waiters: they move, time out from where they are now, and leave no trace
        fc.configure(schemas, List.of(level("only", "{nominalConcurrencyShares: 1, limitResponse: {type: Queue,"
                + " queuing: {queues: 8, handSize: 2, queueLengthLimit: 5}}}")));
        first.join(5_000);
        second.join(5_000);
        assertThat(outcomes).containsExactly("refused", "refused");
        assertThat(fc.waitingForTest("only")).isZero();
        fc.release(held);
        FlowControl.Ticket again = fc.acquire(as(fc, "d"), 1);
        assertThat(again).as("the seat came back").isNotNull();
        // a level that stops queuing answers its waiters at once
        outcomes.clear();
        Thread third = waiter(fc, "e", outcomes);
        for (int i = 0; i < 200 && fc.waitingForTest("only") < 1; i++) {
            Thread.sleep(5);
        }
        fc.configure(schemas, List.of(level("only", "{nominalConcurrencyShares: 1, limitResponse: {type: Reject}}")));
        third.join(5_000);
        assertThat(outcomes).containsExactly("refused");
        fc.release(again);
        assertThat(fc.acquire(as(fc, "f"), 1)).isNotNull();
    }

    private static Thread waiter(FlowControl fc, String user, List<Object> outcomes) {
        Thread t = new Thread(() -> {
            try {
                FlowControl.Ticket ticket = fc.acquire(as(fc, user), 1);
                outcomes.add(ticket == null ? "refused" : "served");
                fc.release(ticket);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        return t;
    }

    @Test
    void aFlowWithLittleInServiceGoesBeforeOneWithMuchWhateverTheirTurns() throws Exception {
        FlowControl fc = oneLevel(4, "{type: Queue, queuing: {queues: 16, handSize: 1, queueLengthLimit: 20}}");
        FlowControl.Level level = fc.levelForTest("only");
        String busy = "busy";
        String light = "light";
        for (int i = 0; level.shuffleShard("all/" + light) == level.shuffleShard("all/" + busy); i++) {
            light = "light-" + i;
        }
        List<FlowControl.Ticket> busyTickets = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            busyTickets.add(fc.acquire(as(fc, busy), 1));
        }
        FlowControl.Ticket other = fc.acquire(as(fc, "third"), 1);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        Thread a = waiterRecording(fc, busy, order);
        for (int i = 0; i < 200 && fc.waitingForTest("only") < 1; i++) {
            Thread.sleep(5);
        }
        Thread b = waiterRecording(fc, light, order);
        for (int i = 0; i < 200 && fc.waitingForTest("only") < 2; i++) {
            Thread.sleep(5);
        }
        fc.release(other);
        for (int i = 0; i < 200 && order.isEmpty(); i++) {
            Thread.sleep(5);
        }
        assertThat(order).as("the flow with three seats in service waits").containsExactly(light);
        busyTickets.forEach(fc::release);
        a.join(5_000);
        b.join(5_000);
        assertThat(order).containsExactly(light, busy);
    }

    private static Thread waiterRecording(FlowControl fc, String user, List<String> order) {
        Thread t = new Thread(() -> {
            try {
                FlowControl.Ticket ticket = fc.acquire(as(fc, user), 1);
                if (ticket != null) {
                    order.add(user);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        return t;
    }
}
