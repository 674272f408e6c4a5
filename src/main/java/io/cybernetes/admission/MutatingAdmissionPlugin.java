package io.cybernetes.admission;

/**
 * Defaults or rewrites the incoming object ({@link Attributes#object()}, changed in
 * place) before schema validation. Refuses a write by throwing an
 * {@link io.cybernetes.api.ApiException}.
 */
public interface MutatingAdmissionPlugin extends AdmissionPlugin {

    void admit(Attributes attributes);
}
