/**
 * The reconcile-status dashboard: a web page served by the application at
 * {@code /dashboard/} that reads the ordinary API and the reconcile-status API with the
 * signed-in user's own bearer token, so it shows exactly what RBAC lets that user see.
 */
package io.cybernetes.dashboard;
