package io.cybernetes.apiserver.internal.audit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cybernetes.api.PrivateFiles;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The audit log file: lines are handed to one writer thread (a full queue makes
 * requests wait rather than lose lines, as kube-apiserver's blocking mode), written and
 * flushed in batches, and the file is rotated to {@code audit-<time>.log} when it passes
 * its size, keeping the newest backups.
 */
final class AuditLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
    /** Queued by close(); compared by identity, so no logged line can be mistaken for it. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String STOP = new String("stop");

    private final Path path;
    private final long maxBytes;
    private final int maxBackups;
    private final BlockingQueue<String> queue = new ArrayBlockingQueue<>(10_000);
    private final Thread writer;
    private long size;

    AuditLog(Path path, long maxBytes, int maxBackups) {
        this.path = path.toAbsolutePath();
        this.maxBytes = maxBytes;
        this.maxBackups = maxBackups;
        this.writer = new Thread(this::run, "audit-writer");
        writer.setDaemon(true);
        writer.start();
    }

    void append(String line) {
        try {
            queue.put(line);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        List<String> batch = new ArrayList<>();
        BufferedWriter out = null;
        try {
            PrivateFiles.directory(path.getParent());
            out = open();
            while (true) {
                String first = queue.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, 1000);
                boolean stop = false;
                for (String line : batch) {
                    if (line == STOP) {
                        stop = true;
                        continue;
                    }
                    out.write(line);
                    out.write('\n');
                    size += line.length() + 1;
                    // rotated line by line, so a burst written at once keeps to the size too
                    if (size > maxBytes) {
                        out.close();
                        rotate();
                        out = open();
                    }
                }
                out.flush();
                batch.clear();
                if (stop) {
                    return;
                }
            }
        } catch (IOException e) {
            log.error("The audit log {} cannot be written: {}", path, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (out != null) {
                try {
                    out.close();
                } catch (IOException e) {
                    log.warn("Closing the audit log failed: {}", e.toString());
                }
            }
        }
    }

    private BufferedWriter open() throws IOException {
        size = Files.exists(path) ? Files.size(path) : 0;
        BufferedWriter out = Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        PrivateFiles.file(path);
        return out;
    }

    private void rotate() throws IOException {
        String stamp = Instant.now().toString().replace(":", "-");
        String base = path.getFileName().toString().replaceFirst("\\.log$", "");
        Path backup = path.resolveSibling(base + "-" + stamp + ".log");
        for (int i = 1; Files.exists(backup); i++) {
            backup = path.resolveSibling(base + "-" + stamp + "-" + i + ".log"); // two rotations within one tick
        }
        Files.move(path, backup);
        List<Path> backups = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(path.getParent(), base + "-*.log")) {
            ds.forEach(backups::add);
        }
        backups.sort(null);
        for (int i = 0; i < backups.size() - maxBackups; i++) {
            Files.deleteIfExists(backups.get(i));
        }
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        append(STOP);
        try {
            writer.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
