package io.cybernetes.client;

import io.cybernetes.api.ApiException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Retry on conflict: 409s are tried again (five attempts in all), anything else is not. */
class ConflictsTest {

    static ApiException conflict() {
        return ApiException.conflict("", "configmaps", "c", "the object has been modified");
    }

    @Test
    void conflictsAreTriedAgainUntilTheUpdateGoesThrough() {
        AtomicInteger attempts = new AtomicInteger();
        String result = Conflicts.retry(() -> {
            if (attempts.incrementAndGet() < 3) {
                throw conflict();
            }
            return "written";
        });
        assertThat(result).isEqualTo("written");
        assertThat(attempts.get()).isEqualTo(3);
    }

    @Test
    void theFifthConflictIsThrown() {
        AtomicInteger attempts = new AtomicInteger();
        ApiException e = catchThrowableOfType(ApiException.class, () -> Conflicts.retry(() -> {
            attempts.incrementAndGet();
            throw conflict();
        }));
        assertThat(e.code()).isEqualTo(409);
        assertThat(attempts.get()).isEqualTo(Conflicts.ATTEMPTS);
    }

    @Test
    void otherErrorsAreNotRetried() {
        AtomicInteger attempts = new AtomicInteger();
        ApiException e = catchThrowableOfType(ApiException.class, () -> Conflicts.retry(() -> {
            attempts.incrementAndGet();
            throw ApiException.forbidden("", "configmaps", "c", "no");
        }));
        assertThat(e.code()).isEqualTo(403);
        assertThat(attempts.get()).isEqualTo(1);
    }
}
