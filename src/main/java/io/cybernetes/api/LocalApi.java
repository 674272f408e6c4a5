package io.cybernetes.api;

import java.util.List;

/**
 * The API server of this process, reached without a network: a request goes through the
 * same steps an HTTP request takes — its bearer token authenticated, the request
 * authorized, admitted, validated and stored — and answers the same bytes. The API server
 * implements it; the in-process {@code ApiClient} uses it. Only resource paths
 * ({@code /api/v1/...}, {@code /apis/{group}/{version}/...}) are served.
 */
public interface LocalApi {

    /**
     * One request. {@code query} is the raw query string without {@code ?} (or null);
     * {@code accept} the Accept header (null: JSON), for example
     * {@code application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1}; {@code body} may be null;
     * {@code userAgent} names the component as its HTTP User-Agent would (managedFields record
     * its writes under the product, {@code kube-controller-manager} of
     * {@code kube-controller-manager/v1.32.0}), null for the server's default.
     */
    record Request(String method, String path, String query, String accept, String contentType, byte[] body,
                   String bearerToken, String userAgent) {

        /** A request of no particular client (the server names its user agent). */
        public Request(String method, String path, String query, String accept, String contentType, byte[] body,
                       String bearerToken) {
            this(method, path, query, accept, contentType, body, bearerToken, null);
        }
    }

    /** A successful answer (2xx): its code, JSON body and the warnings the server attached. */
    record Response(int code, byte[] body, List<String> warnings) {
    }

    /** The kinds this server serves now, built-in and defined at run time (the server's own registry). */
    ResourceRegistry registry();

    /** Answers the request; a refusal or failure is thrown as the {@link ApiException} the server would send. */
    Response exchange(Request request);

    /**
     * Opens a watch ({@code watch=true} in the query): each event is handed to
     * {@code sink} as one line of JSON, on a thread of the server's, until the watch ends
     * or is closed. Refusals are thrown before anything is streamed.
     */
    Watch watch(Request request, WatchSink sink);

    /** Where a watch's events go. */
    interface WatchSink {

        void event(byte[] jsonLine);

        /** The watch ended (by the server, or after {@link Watch#close()}). */
        void closed();
    }

    /** An open watch. */
    interface Watch extends AutoCloseable {

        @Override
        void close();
    }
}
