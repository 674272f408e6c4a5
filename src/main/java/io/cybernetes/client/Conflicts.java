package io.cybernetes.client;

import io.cybernetes.api.ApiException;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Retry on conflict, as client-go's {@code retry.RetryOnConflict}: an update that the
 * server refuses with 409 (someone wrote the object since it was read) is attempted
 * again — the attempt must read the object afresh — up to five times, 10 ms apart with
 * jitter. Any other error, or a fifth conflict, is thrown.
 */
public final class Conflicts {

    static final int ATTEMPTS = 5;
    static final long BACKOFF_MILLIS = 10;

    private Conflicts() {
    }

    public static <T> T retry(Supplier<T> attempt) {
        for (int i = 1; ; i++) {
            try {
                return attempt.get();
            } catch (ApiException e) {
                if (e.code() != 409 || i >= ATTEMPTS) {
                    throw e;
                }
                try {
                    Thread.sleep(BACKOFF_MILLIS + ThreadLocalRandom.current().nextLong(BACKOFF_MILLIS / 10 + 1));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
