package io.cybernetes.client;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * Leader election on a {@code coordination.k8s.io/v1} Lease, as client-go's leaderelection:
 * every {@code retryPeriod} a candidate tries to acquire or renew the lease (an update
 * that names the lease's resourceVersion, so two candidates cannot both win); a lease
 * counts as expired when its record has not changed for {@code leaseDuration} by this
 * candidate's own clock (no trust in other clocks); a leader that cannot renew within
 * {@code renewDeadline} stops leading. Callbacks run on the elector's thread. A leader
 * that is stopped releases the lease once its work has stopped (client-go's
 * {@code ReleaseOnCancel}): the record is left without a holder and with a one-second
 * duration, so a standby takes over at its next try instead of waiting out the lease.
 * One that dies without stopping is taken over once the lease has expired.
 */
public final class LeaderElector {

    private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

    /** Timing, as kube-controller-manager's defaults: 15 s lease, 10 s renew deadline, 2 s retry. */
    public record Timing(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
        public static final Timing DEFAULT = new Timing(Duration.ofSeconds(15), Duration.ofSeconds(10),
                Duration.ofSeconds(2));
    }

    /** What to do on gaining and losing the lease. */
    public interface Callbacks {
        void startedLeading();

        void stoppedLeading();
    }

    private final ApiClient client;
    private final String namespace;
    private final String name;
    private final String identity;
    private final Timing timing;
    private final Callbacks callbacks;
    /** The campaign started last (null: stopped); an earlier one may still be stepping down. */
    private volatile Campaign campaign;
    /** The thread of the campaign started last, which the next one waits for. */
    private Thread previous;

    public LeaderElector(ApiClient client, String namespace, String name, String identity, Timing timing,
                         Callbacks callbacks) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
        this.identity = identity;
        this.timing = timing;
        this.callbacks = callbacks;
    }

    /** Starts competing; a campaign stopped just before finishes stepping down before this one begins. */
    public synchronized void start() {
        if (campaign != null) {
            return;
        }
        Campaign c = new Campaign(previous);
        campaign = c;
        previous = c.thread;
        c.thread.start();
    }

    /**
     * Stops competing, and returns once a leader has stepped down: its {@code stoppedLeading}
     * callback has run and the lease is released (or the renew deadline has passed trying).
     */
    public void stop() {
        Campaign c;
        synchronized (this) {
            c = campaign;
            campaign = null;
        }
        if (c == null) {
            return;
        }
        c.running = false;
        c.thread.interrupt();
        if (c.thread != Thread.currentThread()) {
            try {
                c.thread.join(timing.renewDeadline().toMillis() + timing.retryPeriod().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean isLeader() {
        Campaign c = campaign;
        return c != null && c.leading;
    }

    public String identity() {
        return identity;
    }

    /** The lease's holder as the API has it now. */
    public Optional<String> holder() {
        return client.get(Lease.class, namespace, name).map(l -> l.getSpec() == null ? null
                : l.getSpec().getHolderIdentity());
    }

    /**
     * One run of competing, from a start to a stop, on a thread of its own and with state of its own: it
     * begins once the run before it has ended (so two never lead at once in one process), and releases only
     * the lease it wrote last.
     */
    private final class Campaign {
        final Thread thread;
        final Thread before;
        volatile boolean running = true;
        volatile boolean leading;
        private String observedRecord;
        private long observedAt;
        private long lastRenewed;
        /** The lease's resourceVersion as this campaign last wrote it. */
        private String written;

        Campaign(Thread before) {
            this.before = before;
            this.thread = new Thread(this::run, "leader-election-" + name);
            thread.setDaemon(true);
        }

        private void run() {
            try {
                if (before != null) {
                    before.join();
                }
                while (running) {
                    boolean ok;
                    try {
                        ok = tryAcquireOrRenew();
                    } catch (ApiException e) {
                        log.debug("{}: lease {}/{} not reachable: {}", identity, namespace, name, e.getMessage());
                        ok = false;
                    }
                    long now = System.nanoTime();
                    if (ok) {
                        lastRenewed = now;
                        if (!leading) {
                            leading = true;
                            log.info("{} leads {}/{}", identity, namespace, name);
                            callbacks.startedLeading();
                        }
                    } else if (leading && now - lastRenewed > timing.renewDeadline().toNanos()) {
                        log.warn("{} could not renew {}/{} within {}", identity, namespace, name,
                                timing.renewDeadline());
                        lose();
                    }
                    Thread.sleep(timing.retryPeriod().toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (leading) {
                    // the interrupt that stopped the campaign is set aside while the work stops and the lease goes
                    boolean interrupted = Thread.interrupted();
                    try {
                        lose();
                        release();
                    } finally {
                        if (interrupted) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            }
        }

        private void lose() {
            leading = false;
            log.info("{} stopped leading {}/{}", identity, namespace, name);
            callbacks.stoppedLeading();
        }

        /**
         * Gives the lease up after the work has stopped, if it is as this campaign last wrote it: no holder, a
         * duration of one second, the transitions kept (client-go's release).
         */
        private void release() {
            try {
                Lease lease = client.get(Lease.class, namespace, name).orElse(null);
                if (lease == null || lease.getSpec() == null || written == null
                        || !written.equals(lease.getMetadata().getResourceVersion())) {
                    return;
                }
                ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
                lease.getSpec().setHolderIdentity("");
                lease.getSpec().setLeaseDurationSeconds(1);
                lease.getSpec().setAcquireTime(now);
                lease.getSpec().setRenewTime(now);
                client.update(lease); // names the version read: a lease taken meanwhile stays taken
                log.info("{} released {}/{}", identity, namespace, name);
            } catch (ApiException e) {
                log.debug("{}: lease {}/{} not released ({}); it expires by itself", identity, namespace, name,
                        e.getMessage());
            }
        }

        /** One attempt: true when this candidate holds the lease afterwards. */
        private boolean tryAcquireOrRenew() {
            ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
            Optional<Lease> current = client.get(Lease.class, namespace, name);
            if (current.isEmpty()) {
                try {
                    Lease created = client.create(new LeaseBuilder().withNewMetadata().withNamespace(namespace)
                            .withName(name).endMetadata().withNewSpec().withHolderIdentity(identity)
                            .withLeaseDurationSeconds(seconds()).withAcquireTime(now).withRenewTime(now)
                            .withLeaseTransitions(0).endSpec().build());
                    written = created.getMetadata().getResourceVersion();
                    observe(identity + "@" + now);
                    return true;
                } catch (ApiException e) {
                    if (e.code() == 409) {
                        return false;
                    }
                    throw e;
                }
            }
            Lease lease = current.get();
            LeaseSpec spec = lease.getSpec() == null ? new LeaseSpec() : lease.getSpec();
            String record = spec.getHolderIdentity() + "@" + spec.getRenewTime();
            if (!record.equals(observedRecord)) {
                observe(record);
            }
            boolean mine = identity.equals(spec.getHolderIdentity());
            boolean held = spec.getHolderIdentity() != null && !spec.getHolderIdentity().isEmpty();
            boolean expired = System.nanoTime() - observedAt > timing.leaseDuration().toNanos();
            if (!mine && held && !expired) {
                return false;
            }
            if (!mine) {
                spec.setAcquireTime(now);
                spec.setLeaseTransitions(Objects.requireNonNullElse(spec.getLeaseTransitions(), 0) + 1);
            }
            spec.setHolderIdentity(identity);
            spec.setRenewTime(now);
            spec.setLeaseDurationSeconds(seconds());
            lease.setSpec(spec);
            try {
                Lease updated = client.update(lease);
                written = updated.getMetadata().getResourceVersion();
                observe(identity + "@" + updated.getSpec().getRenewTime());
                return true;
            } catch (ApiException e) {
                if (e.code() == 409) {
                    return false;
                }
                throw e;
            }
        }

        private void observe(String record) {
            observedRecord = record;
            observedAt = System.nanoTime();
        }
    }

    private int seconds() {
        return (int) Math.max(1, timing.leaseDuration().toSeconds());
    }
}
