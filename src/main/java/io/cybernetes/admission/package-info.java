/**
 * The admission pipeline: {@link io.cybernetes.admission.MutatingAdmissionPlugin}s that
 * default and rewrite an incoming object, then (after schema validation)
 * {@link io.cybernetes.admission.ValidatingAdmissionPlugin}s that accept or refuse it,
 * in the order {@code cybernetes.admission.plugins} sets. Built-in plugins live in one
 * sub-package each. Plugins read the cluster through {@link io.cybernetes.admission.ClusterReader},
 * which the API server provides; this module never touches the store.
 */
package io.cybernetes.admission;
