package io.cybernetes.admission;

/**
 * Accepts or refuses a write after mutation and schema validation, by returning or by
 * throwing an {@link io.cybernetes.api.ApiException}. It sees a copy of the object, so it
 * cannot change what is stored.
 */
public interface ValidatingAdmissionPlugin extends AdmissionPlugin {

    void validate(Attributes attributes);
}
