package io.cybernetes.client;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes core/v1 Events about objects, as client-go's event recorder: the same event
 * (object, type, reason, message) again within the recorder's memory is one Event whose
 * {@code count} and {@code lastTimestamp} go up, not a new object each time. Recording
 * never fails the caller: a write that does not go through is logged and dropped.
 */
public final class EventRecorder {

    private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
    private static final int REMEMBERED = 4096;

    private final ApiClient client;
    private final String component;
    private final Map<String, Event> recent = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Event> eldest) {
            return size() > REMEMBERED;
        }
    };

    public EventRecorder(ApiClient client, String component) {
        this.client = client;
        this.component = component;
    }

    public void normal(HasMetadata about, String reason, String message) {
        record(about, "Normal", reason, message);
    }

    public void warning(HasMetadata about, String reason, String message) {
        record(about, "Warning", reason, message);
    }

    /**
     * Records the event. Only the recorder's memory is shared between callers (under its
     * lock); the write itself is not, so that many threads — the scheduler's binders — record
     * at once.
     */
    public void record(HasMetadata about, String type, String reason, String message) {
        String ns = about.getMetadata().getNamespace() == null || about.getMetadata().getNamespace().isEmpty()
                ? "default" : about.getMetadata().getNamespace();
        String key = about.getKind() + "/" + ns + "/" + about.getMetadata().getName() + "/" + about.getMetadata().getUid()
                + "/" + type + "/" + reason + "/" + message;
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS);
        String seenName = null;
        int count = 1;
        synchronized (this) {
            Event seen = recent.get(key);
            if (seen != null) {
                count = seen.getCount() + 1;
                seen.setCount(count);
                seen.setLastTimestamp(now.toString());
                seenName = seen.getMetadata().getName();
            }
        }
        try {
            Event written;
            if (seenName != null) {
                written = client.patch(Event.class, ns, seenName, "{\"count\":" + count + ",\"lastTimestamp\":\""
                        + now.toInstant() + "\"}");
            } else {
                written = client.create(new EventBuilder().withNewMetadata().withNamespace(ns)
                        .withName(about.getMetadata().getName() + "." + Long.toHexString(System.nanoTime())
                                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000)))
                        .endMetadata()
                        .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(about.getApiVersion())
                                .withKind(about.getKind()).withNamespace(about.getMetadata().getNamespace())
                                .withName(about.getMetadata().getName()).withUid(about.getMetadata().getUid())
                                .withResourceVersion(about.getMetadata().getResourceVersion()).build())
                        .withType(type).withReason(reason).withMessage(message).withCount(1)
                        .withFirstTimestamp(now.toInstant().toString()).withLastTimestamp(now.toInstant().toString())
                        .withNewSource().withComponent(component).endSource()
                        .withReportingComponent(component)
                        .build());
            }
            synchronized (this) {
                recent.put(key, written);
            }
        } catch (ApiException ex) {
            synchronized (this) {
                recent.remove(key);
            }
            log.warn("{}: could not record {} {} about {}: {}", component, type, reason, about.getMetadata().getName(),
                    ex.getMessage());
        }
    }
}
