/**
 * Reconciling controllers: the {@link io.cybernetes.controller.Reconciler} contract, the
 * {@link io.cybernetes.controller.Controller} that turns informer events into keys and
 * keys into reconciles on a rate-limited queue, and leader election on a
 * {@code coordination.k8s.io/v1} Lease, so that with several replicas one runs each
 * controller. Controllers read and write only through an
 * {@link io.cybernetes.client.ApiClient}, under their own identity.
 */
package io.cybernetes.controller;
