/**
 * Simulated nodes, as KWOK does: node agents that register their Node, renew its Lease and
 * run the pods bound to them through their lifecycle — through {@code client} only, under
 * the node's own identity.
 */
package io.cybernetes.node;
