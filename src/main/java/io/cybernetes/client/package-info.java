/**
 * How controllers, the scheduler and node agents see the cluster, named after client-go:
 * {@link io.cybernetes.client.Reflector}s list and watch through a
 * {@link io.cybernetes.client.ListerWatcher} into a {@link io.cybernetes.client.DeltaFifo},
 * a {@link io.cybernetes.client.SharedInformer} applies the deltas to an
 * {@link io.cybernetes.client.Indexer} and tells its handlers, and handlers put keys into a
 * {@link io.cybernetes.client.RateLimitingQueue} that workers drain. Uses only the
 * {@code api} module; it never touches the store.
 */
package io.cybernetes.client;
