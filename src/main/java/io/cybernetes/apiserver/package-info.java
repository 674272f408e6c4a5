/**
 * The API server: REST endpoints at Kubernetes paths, discovery, OpenAPI, tables,
 * watch streaming, patches and subresources. The only module that uses {@code store}.
 */
package io.cybernetes.apiserver;
