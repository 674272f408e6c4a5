package io.cybernetes.apiserver.internal.handlers;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A watch's turns write to its response from their own threads while the container may complete it (the client
 * went away) and hand the same response to the next request: nothing may be written once it is complete.
 */
class ServletCallSinkTest {

    private final AtomicInteger completions = new AtomicInteger();
    private final AsyncContext async = (AsyncContext) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {AsyncContext.class}, (proxy, method, args) -> {
                if (method.getName().equals("complete")) {
                    completions.incrementAndGet();
                }
                return null;
            });

    @Test
    void aResponseTheContainerCompletedTakesNoMoreWrites() throws Exception {
        Recording out = new Recording(null);
        ServletCall.Sink sink = sink(out);
        sink.write(bytes("first\n"));
        sink.completed();

        assertThatThrownBy(() -> sink.write(bytes("late\n"))).isInstanceOf(IOException.class);
        assertThatThrownBy(sink::flush).isInstanceOf(IOException.class);
        sink.end();
        assertThat(out.text()).isEqualTo("first\n");
        assertThat(completions).as("the container completed it already").hasValue(0);
    }

    @Test
    void theWatchCompletesItsResponseOnceAndWritesNothingAfter() throws Exception {
        Recording out = new Recording(null);
        ServletCall.Sink sink = sink(out);
        sink.write(bytes("event\n"));
        sink.end();
        sink.end();
        sink.completed(); // the container's word that it is complete comes after

        assertThat(completions).hasValue(1);
        assertThatThrownBy(() -> sink.write(bytes("late\n"))).isInstanceOf(IOException.class);
        assertThat(out.text()).isEqualTo("event\n");
    }

    @Test
    void aWriteUnderWayFinishesBeforeTheContainerCompletesTheResponse() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Recording out = new Recording(release);
        ServletCall.Sink sink = sink(out);
        Thread turn = new Thread(() -> {
            try {
                sink.write(bytes("slow client\n"));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        turn.start();
        assertThat(out.entered.await(10, TimeUnit.SECONDS)).isTrue();

        Thread container = new Thread(sink::completed);
        container.start();
        await().atMost(10, TimeUnit.SECONDS).until(() -> container.getState() == Thread.State.WAITING);
        release.countDown();
        turn.join(10_000);
        container.join(10_000);

        assertThat(container.isAlive()).isFalse();
        assertThat(out.text()).isEqualTo("slow client\n");
        assertThatThrownBy(() -> sink.write(bytes("late\n"))).isInstanceOf(IOException.class);
        assertThat(out.text()).isEqualTo("slow client\n");
    }

    private ServletCall.Sink sink(ServletOutputStream out) {
        ServletCall.Sink sink = new ServletCall.Sink(async);
        sink.out = out;
        return sink;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** An output that records what it is given; a write can be held until released. */
    private static final class Recording extends ServletOutputStream {
        private final ByteArrayOutputStream written = new ByteArrayOutputStream();
        private final CountDownLatch hold;
        final CountDownLatch entered = new CountDownLatch(1);

        Recording(CountDownLatch hold) {
            this.hold = hold;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            entered.countDown();
            if (hold != null) {
                try {
                    hold.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            synchronized (written) {
                written.write(b, off, len);
            }
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        String text() {
            synchronized (written) {
                return written.toString(StandardCharsets.UTF_8);
            }
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
        }
    }
}
