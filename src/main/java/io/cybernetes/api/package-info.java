/**
 * Wire types and the resource registry: what every other module speaks.
 * Depends on nothing else in Cybernetes.
 */
package io.cybernetes.api;
