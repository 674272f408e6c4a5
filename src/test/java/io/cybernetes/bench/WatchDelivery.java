package io.cybernetes.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import javax.net.SocketFactory;

/**
 * Watch delivery latency, whoever serves the watch: watchers each on one blocking
 * connection and thread (as kubectl and client-go hold them; the JDK HttpClient would
 * funnel every stream through one selector thread), a writer at a fixed rate whose objects
 * carry their send time, and the time from send to arrival of every event at every watcher.
 */
final class WatchDelivery {

    /** Opens watcher {@code n}'s stream. */
    interface Opener {
        InputStream open(int n) throws IOException;
    }

    /** Writes object {@code n}, carrying {@code sentNanos} in a field named sent. */
    interface Writer {
        void write(int n, long sentNanos) throws Exception;
    }

    /** Finds send times in a body, one byte at a time. */
    interface Scanner {
        /** The send time whose text ended just before this byte, or -1. */
        long feed(byte b);
    }

    /** What was measured: every latency (sorted, ns), how many were expected, and the writes' own latencies. */
    record Result(long[] latencies, long expected, long[] writes) {

        void print(String what, int watchers, int rate, int seconds) {
            System.out.printf(Locale.ROOT, "%s, %d watchers, %d objects/s for %ds: %,d of %,d events delivered,"
                            + " p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n", what, watchers, rate, seconds,
                    latencies.length, expected, ms(latencies, 0.5), ms(latencies, 0.9), ms(latencies, 0.99),
                    ms(latencies, 1.0));
            System.out.printf(Locale.ROOT, "  (the writes themselves meanwhile: p50 %.2f ms, p99 %.2f ms)%n",
                    ms(writes, 0.5), ms(writes, 0.99));
        }

        double p99() {
            return ms(latencies, 0.99);
        }
    }

    private WatchDelivery() {
    }

    static double ms(long[] sorted, double p) {
        return sorted.length == 0 ? 0
                : sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))] / 1e6;
    }

    /** The text {@code "sent":"<digits>} in JSON as it is sent (Kubernetes' watch events). */
    static Supplier<Scanner> sentField() {
        return SentField::new;
    }

    /**
     * Kubernetes watches of {@code path} as kubectl and client-go open them over HTTP/1.1: a socket each from
     * {@code sockets} to 127.0.0.1:{@code port}, the request sent with the bearer token; the raw response is read.
     */
    static Opener http11(SocketFactory sockets, int port, String path, String token) {
        return n -> {
            Socket socket = sockets.createSocket("127.0.0.1", port);
            try {
                socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                        + token + "\r\nAccept: application/json\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                return socket.getInputStream();
            } catch (IOException e) {
                socket.close();
                throw e;
            }
        };
    }

    /** Base64 values ({@code "value":"..."}, etcd's watch events) each holding {@code "sent":"<digits>}. */
    static Supplier<Scanner> base64Values() {
        return Base64Values::new;
    }

    /**
     * Opens the watches, writes {@code rate} objects a second for {@code seconds}, and
     * collects when each event reached each watcher. {@code rawHttp}: the opener gives
     * the raw HTTP/1.1 response (headers, chunked body), not just the body.
     */
    static Result run(int watchers, int rate, int seconds, Opener opener, Supplier<Scanner> scanners, Writer writer,
                      boolean rawHttp) throws Exception {
        int total = rate * seconds;
        long[][] latencies = new long[watchers][total];
        int[] counts = new int[watchers];
        CountDownLatch done = new CountDownLatch(watchers);
        List<InputStream> streams = new ArrayList<>();
        List<FirstBytes> heads = new ArrayList<>();
        String[] endings = new String[watchers];
        for (int w = 0; w < watchers; w++) {
            int id = w;
            FirstBytes raw = new FirstBytes(opener.open(w));
            streams.add(raw);
            heads.add(raw);
            Scanner scanner = scanners.get();
            Thread t = new Thread(() -> {
                endings[id] = "still reading when the run ended";
                try (InputStream in = rawHttp ? new ChunkedBody(new BufferedInputStream(raw, 65536)) : raw) {
                    byte[] buf = new byte[65536];
                    for (int n; counts[id] < total && (n = in.read(buf)) >= 0; ) {
                        for (int i = 0; i < n; i++) {
                            long sent = scanner.feed(buf[i]);
                            if (sent >= 0 && counts[id] < total) {
                                latencies[id][counts[id]++] = System.nanoTime() - sent;
                            }
                        }
                    }
                    endings[id] = counts[id] < total ? "its stream ended" : "complete";
                } catch (IOException e) {
                    // the stream was closed
                } catch (RuntimeException e) {
                    endings[id] = "its response could not be read: " + e;
                } finally {
                    done.countDown();
                }
            }, "bench-watcher-" + w);
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(3000);
        long intervalNanos = 1_000_000_000L / rate;
        long next = System.nanoTime();
        ExecutorService writers = Executors.newFixedThreadPool(8);
        long[] writeLatency = new long[total];
        List<Future<?>> writes = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            next += intervalNanos;
            int n = i;
            writes.add(writers.submit(() -> {
                long t0 = System.nanoTime();
                writer.write(n, t0);
                writeLatency[n] = System.nanoTime() - t0;
                return null;
            }));
        }
        writers.shutdown();
        writers.awaitTermination(60, TimeUnit.SECONDS);
        for (Future<?> w : writes) {
            w.get(); // a failed write fails the run: its events would be missing from the figures
        }
        done.await(30, TimeUnit.SECONDS);
        for (InputStream s : streams) {
            s.close();
        }
        // a watcher that missed events says what it was answered (a watch left unanswered shows as no bytes)
        int told = 0;
        for (int w = 0; w < watchers && told < 5; w++) {
            if (counts[w] < total) {
                told++;
                System.out.printf(Locale.ROOT, "  watcher %d: %,d of %,d events, %s; its first bytes: %s%n", w,
                        counts[w], total, endings[w], heads.get(w).text());
            }
        }
        List<long[]> parts = new ArrayList<>();
        for (int w = 0; w < watchers; w++) {
            parts.add(Arrays.copyOf(latencies[w], counts[w]));
        }
        long[] all = parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        Arrays.sort(writeLatency);
        return new Result(all, (long) watchers * total, writeLatency);
    }

    /** A stream read in blocks; a single byte is read as a block of one. */
    abstract static class BlockReader extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public abstract int read(byte[] b, int off, int len) throws IOException;
    }

    /** A stream that keeps its first bytes, for telling what a watcher that missed events was answered. */
    private static final class FirstBytes extends java.io.FilterInputStream {
        private final byte[] head = new byte[2048];
        private volatile int kept;

        FirstBytes(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0 && kept < head.length) {
                head[kept++] = (byte) b;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0 && kept < head.length) {
                int k = Math.min(n, head.length - kept);
                System.arraycopy(b, off, head, kept, k);
                kept += k;
            }
            return n;
        }

        /** The status line and the start of what follows the headers (all of it when there are no headers). */
        String text() {
            if (kept == 0) {
                return "(none)";
            }
            String t = new String(head, 0, kept, StandardCharsets.UTF_8);
            int body = t.indexOf("\r\n\r\n");
            if (t.startsWith("HTTP/") && body > 0) {
                t = t.substring(0, t.indexOf("\r\n")) + " ... " + t.substring(body + 4);
            }
            t = t.length() > 400 ? t.substring(0, 400) : t;
            return "\"" + t.replace("\r", "\\r").replace("\n", "\\n") + "\"";
        }
    }

    /** The body of a raw HTTP/1.1 response with chunked transfer coding, decoded. */
    private static final class ChunkedBody extends BlockReader {
        private final InputStream in;
        private int left = -1;

        ChunkedBody(InputStream in) throws IOException {
            this.in = in;
            for (int state = 0, b; state < 4 && (b = in.read()) >= 0; ) {
                state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3))
                        ? state + 1 : 0;
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left == 0) {
                in.read(); // the CRLF after a chunk
                in.read();
            }
            if (left <= 0) {
                StringBuilder size = new StringBuilder();
                for (int c; (c = in.read()) >= 0 && c != '\n'; ) {
                    if (c != '\r') {
                        size.append((char) c);
                    }
                }
                left = size.isEmpty() ? 0 : Integer.parseInt(size.toString().trim(), 16);
                if (left == 0) {
                    return -1;
                }
            }
            int n = in.read(b, off, Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** Matches a fixed prefix, then reads what follows it. */
    private abstract static class Prefixed implements Scanner {
        private final byte[] prefix;
        private int matched;
        boolean inside;

        Prefixed(String prefix) {
            this.prefix = prefix.getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public long feed(byte b) {
            if (inside) {
                return inside(b);
            }
            if (b == prefix[matched]) {
                if (++matched == prefix.length) {
                    matched = 0;
                    inside = true;
                }
            } else {
                matched = b == prefix[0] ? 1 : 0;
            }
            return -1;
        }

        /** A byte after the prefix: sets {@code inside} false at the end of the value. */
        abstract long inside(byte b);
    }

    private static final class SentField extends Prefixed {
        private long sent;

        SentField() {
            super("\"sent\":\"");
        }

        @Override
        long inside(byte b) {
            if (b >= '0' && b <= '9') {
                sent = sent * 10 + (b - '0');
                return -1;
            }
            inside = false;
            long s = sent;
            sent = 0;
            return s;
        }
    }

    private static final class Base64Values extends Prefixed {
        private final StringBuilder value = new StringBuilder();

        Base64Values() {
            super("\"value\":\"");
        }

        @Override
        long inside(byte b) {
            if (b != '"') {
                value.append((char) b);
                return -1;
            }
            inside = false;
            byte[] decoded = Base64.getDecoder().decode(value.toString());
            value.setLength(0);
            SentField sent = new SentField();
            for (byte d : decoded) {
                long s = sent.feed(d);
                if (s >= 0) {
                    return s;
                }
            }
            return -1;
        }
    }
}
