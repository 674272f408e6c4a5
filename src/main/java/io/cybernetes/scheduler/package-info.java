/**
 * The two-phase scheduler, shaped like the Kubernetes scheduling framework: plugins that
 * filter out the nodes a pod cannot run on and score the rest ({@code framework}), one
 * sub-package per plugin. It reads and writes through {@code client} only.
 */
package io.cybernetes.scheduler;
