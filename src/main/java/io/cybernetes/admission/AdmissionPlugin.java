package io.cybernetes.admission;

/** A named step of the admission chain. */
public interface AdmissionPlugin {

    /** The name {@code cybernetes.admission.plugins} orders it by (Kubernetes' name where there is one). */
    String name();

    /** Whether the plugin looks at this write at all; plugins not interested cost nothing. */
    default boolean handles(Attributes attributes) {
        return true;
    }
}
