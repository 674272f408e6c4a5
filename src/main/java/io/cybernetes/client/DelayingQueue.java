package io.cybernetes.client;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A work queue that can also add a key later. A key waiting to be added keeps its
 * earliest time: asking again for a later one changes nothing, for an earlier one moves
 * it up. One daemon thread moves keys whose time has come into the queue.
 */
public class DelayingQueue<K> extends WorkQueue<K> {

    private record Waiting<K>(K key, long readyAt) {
    }

    private final PriorityQueue<Waiting<K>> waiting = new PriorityQueue<>((a, b) -> Long.compare(a.readyAt, b.readyAt));
    private final Map<K, Long> readyAt = new HashMap<>();
    private final Thread mover;

    public DelayingQueue(String name) {
        mover = new Thread(this::moveWhenReady, name + "-delays");
        mover.setDaemon(true);
        mover.start();
    }

    /** Adds the key after the delay (at once when it is zero or negative). */
    public void addAfter(K key, Duration delay) {
        if (isShuttingDown()) {
            return;
        }
        if (delay.isZero() || delay.isNegative()) {
            add(key);
            return;
        }
        long at = System.nanoTime() + delay.toNanos();
        synchronized (waiting) {
            Long existing = readyAt.get(key);
            if (existing != null && existing <= at) {
                return;
            }
            readyAt.put(key, at);
            waiting.add(new Waiting<>(key, at));
            waiting.notifyAll();
        }
    }

    /** Keys waiting for their time. */
    public int waitingCount() {
        synchronized (waiting) {
            return readyAt.size();
        }
    }

    private void moveWhenReady() {
        try {
            while (!isShuttingDown()) {
                K ready = null;
                synchronized (waiting) {
                    Waiting<K> head = waiting.peek();
                    long now = System.nanoTime();
                    if (head == null) {
                        waiting.wait(100);
                    } else if (head.readyAt() > now) {
                        long ms = Math.max(1, (head.readyAt() - now) / 1_000_000);
                        waiting.wait(Math.min(ms, 100));
                    } else {
                        waiting.poll();
                        // a key moved earlier left its later entry behind: only the current one counts
                        Long current = readyAt.get(head.key());
                        if (current != null && current == head.readyAt()) {
                            readyAt.remove(head.key());
                            ready = head.key();
                        }
                    }
                }
                if (ready != null) {
                    add(ready);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void shutDown() {
        super.shutDown();
        synchronized (waiting) {
            waiting.notifyAll();
        }
    }
}
