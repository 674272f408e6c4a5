package io.cybernetes.apiserver.internal;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;

/** Work to do once a request that went asynchronous (a body still arriving, a watch) is answered. */
public final class AsyncCompletion {

    private AsyncCompletion() {
    }

    /** Runs {@code done} when the request's asynchronous processing completes. */
    public static void whenComplete(HttpServletRequest request, Runnable done) {
        request.getAsyncContext().addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                done.run();
            }

            @Override
            public void onTimeout(AsyncEvent event) {
            }

            @Override
            public void onError(AsyncEvent event) {
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
            }
        });
    }
}
