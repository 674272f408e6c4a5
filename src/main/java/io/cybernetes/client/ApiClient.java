package io.cybernetes.client;

import io.cybernetes.api.ResourceType;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;

import java.util.List;
import java.util.Optional;

/**
 * The Kubernetes API as controllers, the scheduler and node agents use it, typed with the
 * fabric8 model classes. Every call goes through authentication, authorization and
 * admission under the client's own identity. Errors are
 * {@link io.cybernetes.api.ApiException}s carrying the server's Status (404, 409, 403, ...).
 */
public interface ApiClient {

    /** The object, or empty on 404. */
    <T extends HasMetadata> Optional<T> get(Class<T> kind, String namespace, String name);

    /**
     * The objects (all namespaces when {@code namespace} is null) that the selectors (each
     * may be null) select, with the revision of the list.
     */
    <T extends HasMetadata> ListerWatcher.Listed<T> list(Class<T> kind, String namespace, String labelSelector,
                                                         String fieldSelector);

    default <T extends HasMetadata> ListerWatcher.Listed<T> list(Class<T> kind, String namespace, String labelSelector) {
        return list(kind, namespace, labelSelector, null);
    }

    /** Events after the revision of the objects the field selector (or null) selects, until the stream is closed. */
    <T extends HasMetadata> ListerWatcher.WatchStream<T> watch(Class<T> kind, String namespace, String resourceVersion,
                                                               String fieldSelector);

    default <T extends HasMetadata> ListerWatcher.WatchStream<T> watch(Class<T> kind, String namespace,
                                                                       String resourceVersion) {
        return watch(kind, namespace, resourceVersion, null);
    }

    /**
     * The objects' metadata only ({@code PartialObjectMetadata}), as metadata informers list.
     * By resource type, not model class: so every served kind is reached, custom resources too.
     */
    ListerWatcher.Listed<PartialObjectMetadata> listMetadata(ResourceType type, String namespace);

    /** Events after the revision with the objects' metadata only. */
    ListerWatcher.WatchStream<PartialObjectMetadata> watchMetadata(ResourceType type, String namespace,
                                                                  String resourceVersion);

    /** One object's metadata, or empty on 404. */
    Optional<PartialObjectMetadata> getMetadata(ResourceType type, String namespace, String name);

    /** A JSON merge patch of an object of any served kind. */
    void patch(ResourceType type, String namespace, String name, String mergePatch);

    /**
     * The objects of a collection as the server wrote them (for kinds whose fabric8 model
     * reads a field wrongly, as its Duration reads a window of {@code 1.5s}).
     */
    java.util.List<tools.jackson.databind.node.ObjectNode> listJson(ResourceType type, String namespace,
                                                                    String labelSelector);

    /** The object's {@code scale} subresource (an autoscaling/v1 Scale); the server's 404 when it has none. */
    io.fabric8.kubernetes.api.model.autoscaling.v1.Scale getScale(ResourceType type, String namespace, String name);

    /** Writes the object's {@code scale} subresource (its resourceVersion, when set, must be current). */
    io.fabric8.kubernetes.api.model.autoscaling.v1.Scale updateScale(ResourceType type, String namespace, String name,
                                                                     io.fabric8.kubernetes.api.model.autoscaling.v1.Scale scale);

    /** Deletes an object of any served kind with the propagation policy (null: the kind's default). */
    void delete(ResourceType type, String namespace, String name, String propagationPolicy);

    <T extends HasMetadata> T create(T object);

    /** Replaces the object; its resourceVersion, when set, must be current (else 409). */
    <T extends HasMetadata> T update(T object);

    /** Replaces the status of the object (the status subresource). */
    <T extends HasMetadata> T updateStatus(T object);

    /** A JSON merge patch (RFC 7386). */
    <T extends HasMetadata> T patch(Class<T> kind, String namespace, String name, String mergePatch);

    /** Binds a pod to a node (the pods/binding subresource); 409 when it is bound already. */
    void bind(String namespace, String pod, String node);

    /**
     * A token for the ServiceAccount (its {@code token} subresource) for the audiences, valid
     * for the seconds asked, bound to the pod — as a kubelet asks for a pod's projected token.
     */
    String requestToken(String namespace, String serviceAccount, List<String> audiences, long expirationSeconds,
                        String podName, String podUid);

    /** Sets a terminating namespace's spec.finalizers (the namespace's finalize subresource). */
    io.fabric8.kubernetes.api.model.Namespace finalizeNamespace(io.fabric8.kubernetes.api.model.Namespace namespace);

    /** Deletes with the propagation policy (Background, Foreground, Orphan; null for the kind's default). */
    default void delete(Class<? extends HasMetadata> kind, String namespace, String name, String propagationPolicy) {
        delete(kind, namespace, name, propagationPolicy, null);
    }

    /** As above, with a grace period (0: at once, even for a pod on a node; null: the object's own). */
    void delete(Class<? extends HasMetadata> kind, String namespace, String name, String propagationPolicy,
                Long gracePeriodSeconds);

    /** A ListerWatcher of the kind's metadata only, for informers that need no more (the garbage collector's). */
    default ListerWatcher<PartialObjectMetadata> metadataListerWatcher(ResourceType type, String namespace) {
        return ListerWatcher.of(() -> listMetadata(type, namespace), rv -> watchMetadata(type, namespace, rv));
    }

    /** A ListerWatcher over this client, for informers. */
    default <T extends HasMetadata> ListerWatcher<T> listerWatcher(Class<T> kind, String namespace) {
        return listerWatcher(kind, namespace, null);
    }

    /** A ListerWatcher of the objects a field selector selects (for example a node's pods, {@code spec.nodeName=n1}). */
    default <T extends HasMetadata> ListerWatcher<T> listerWatcher(Class<T> kind, String namespace,
                                                                   String fieldSelector) {
        return ListerWatcher.of(() -> list(kind, namespace, null, fieldSelector),
                rv -> watch(kind, namespace, rv, fieldSelector));
    }
}
