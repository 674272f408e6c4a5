/**
 * The revisioned store: MVCC over SQL with a global revision, optimistic concurrency,
 * group commit, compaction and a per-process watch cache. Only {@code apiserver} uses it.
 */
package io.cybernetes.store;
