package io.cybernetes.controller;

import io.cybernetes.client.ApiClient;
import io.cybernetes.client.LeaderElector;
import io.cybernetes.client.SharedInformerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Runs the controllers behind leader election, as kube-controller-manager: every replica
 * competes for one Lease; the one that holds it builds a fresh set of shared informers
 * and controllers (one watch per kind for all of them), waits for the caches to sync
 * and starts the workers; losing the lease stops them all. Controllers are described by
 * {@link Registration}s so that each term starts from nothing but the API.
 */
public final class ControllerManager {

    private static final Logger log = LoggerFactory.getLogger(ControllerManager.class);
    /** How long a stopping term waits for the reconciles under way. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    /** Builds one controller for a term, wiring its handlers into the shared informers. */
    public interface Registration extends BiFunction<ApiClient, SharedInformerFactory, Controller> {
    }

    /** A snapshot of one controller for the reconcile status: its counters, and whether this replica runs it. */
    public record ControllerState(Controller.Status status, boolean leader, String holder, Instant since) {
    }

    private final ApiClient client;
    private final Map<String, Registration> registrations;
    private final Duration resyncPeriod;
    private final LeaderElector elector;
    private final String identity;
    private volatile Term term;
    private volatile Term lastTerm;
    private volatile Instant leadingSince;

    /** One leadership term's informers and controllers. */
    private record Term(SharedInformerFactory informers, Map<String, Controller> controllers) {
    }

    /**
     * @param registrations controllers by name, started in this order
     * @param electionNamespace where the Lease lives ({@code kube-system})
     * @param electionName the Lease's name ({@code kube-controller-manager})
     * @param timing lease timing; null runs the controllers without election (one replica only)
     */
    public ControllerManager(ApiClient client, Map<String, Registration> registrations, Duration resyncPeriod,
                             String identity, String electionNamespace, String electionName,
                             LeaderElector.Timing timing) {
        this.client = client;
        this.registrations = new LinkedHashMap<>(registrations);
        this.resyncPeriod = resyncPeriod;
        this.identity = identity;
        this.elector = timing == null ? null : new LeaderElector(client, electionNamespace, electionName, identity,
                timing, new LeaderElector.Callbacks() {
                    @Override
                    public void startedLeading() {
                        startTerm();
                    }

                    @Override
                    public void stoppedLeading() {
                        stopTerm();
                    }
                });
    }

    public void start() {
        synchronized (lifecycle) {
            if (elector != null) {
                elector.start();
            } else {
                startTerm();
            }
        }
    }

    /**
     * Stops the controllers and waits (a while) for the reconciles under way; a leader releases its lease after
     * that. Under a lock of its own: the elector's thread takes this object's to stop the term.
     */
    public void stop() {
        synchronized (lifecycle) {
            if (elector != null) {
                elector.stop();
            }
            stopTerm();
        }
    }

    /** Orders start and stop (the term's own changes are under this object's lock). */
    private final Object lifecycle = new Object();

    /** The client the controllers use (in-process, as the controller manager's identity). */
    public ApiClient client() {
        return client;
    }

    /** The names of the controllers, in start order. */
    public List<String> names() {
        return List.copyOf(registrations.keySet());
    }

    /** One controller's counters: of this term, or the last one, or idle when it never ran here. */
    public Controller.Status status(String name) {
        Term t = term != null ? term : lastTerm;
        Controller c = t == null ? null : t.controllers().get(name);
        return c == null ? Controller.Status.idle(name) : c.status();
    }

    /** Who holds the lease now, as the Lease says (empty without election or before anyone took it). */
    public Optional<String> leaseHolder() {
        if (elector == null) {
            return Optional.of(identity);
        }
        return elector.holder();
    }

    public boolean isLeader() {
        return term != null;
    }

    public String identity() {
        return identity;
    }

    private synchronized void startTerm() {
        if (term != null) {
            return;
        }
        SharedInformerFactory informers = new SharedInformerFactory(client, resyncPeriod);
        Map<String, Controller> controllers = new LinkedHashMap<>();
        registrations.forEach((name, r) -> controllers.put(name, r.apply(client, informers)));
        informers.start();
        Term t = new Term(informers, controllers);
        term = t;
        lastTerm = t;
        leadingSince = Instant.now();
        Thread starter = new Thread(() -> startWhenSynced(t), "controller-manager-start");
        starter.setDaemon(true);
        starter.start();
    }

    /** Workers start once the caches have synced, so that nothing acts on half a picture of the cluster. */
    private void startWhenSynced(Term t) {
        try {
            while (term == t && !t.informers().waitForSync(Duration.ofSeconds(10))) {
                log.info("controller manager: waiting for the informers to sync");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        synchronized (this) {
            if (term == t) {
                t.controllers().values().forEach(Controller::start);
                log.info("controller manager {}: started {}", identity, t.controllers().keySet());
            }
        }
    }

    private synchronized void stopTerm() {
        Term t = term;
        if (t == null) {
            return;
        }
        term = null;
        t.controllers().values().forEach(Controller::stop);
        t.informers().stop();
        // the reconciles under way finish before a successor may start its own
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        try {
            for (Controller c : t.controllers().values()) {
                if (!c.awaitStopped(deadline)) {
                    log.warn("controller manager {}: {} still reconciling after {}", identity, c.name(),
                            STOP_WAIT);
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("controller manager {}: stopped its controllers", identity);
    }

    /** The state of every controller: the running ones if this replica leads, else what it ran last (if anything). */
    public List<ControllerState> states() {
        boolean leading = term != null;
        List<ControllerState> out = new ArrayList<>();
        for (String name : registrations.keySet()) {
            Controller.Status s = status(name);
            out.add(new ControllerState(s, leading, leading ? identity : null, leading ? leadingSince : null));
        }
        return out;
    }

    /** The last reconcile of an object by a controller of the current (or last) term. */
    public Optional<Controller.KeyResult> lastResult(String controller, String key) {
        Term t = term != null ? term : lastTerm;
        if (t == null || !t.controllers().containsKey(controller)) {
            return Optional.empty();
        }
        return t.controllers().get(controller).lastResult(key);
    }
}
