package io.cybernetes.store.internal;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

/**
 * A watcher that, as an informer's reflector does, watches again from the last revision it
 * saw whenever its stream ends or cannot be had (a server away, a refusal), until told to stop.
 */
final class ResumingWatcher {

    /** What the watcher makes of one event line; returns the revision to resume from. */
    interface Lines {
        long seen(String line, long last) throws Exception;
    }

    private ResumingWatcher() {
    }

    /** Starts a daemon thread watching with {@code request(revision)}, from {@code from}. */
    static Thread start(String name, HttpClient http, LongFunction<HttpRequest> request, long from,
                        BooleanSupplier stop, Lines lines) {
        Thread t = new Thread(() -> {
            long last = from;
            while (!stop.getAsBoolean()) {
                try {
                    HttpResponse<java.util.stream.Stream<String>> r = http.send(request.apply(last),
                            HttpResponse.BodyHandlers.ofLines());
                    if (r.statusCode() != 200) {
                        Thread.sleep(200);
                        continue;
                    }
                    for (String line : (Iterable<String>) r.body()::iterator) {
                        last = lines.seen(line, last);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException stopped) {
                        return;
                    }
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
