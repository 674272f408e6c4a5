package io.cybernetes.client;

import org.springframework.context.SmartLifecycle;

/**
 * A component of the application (controller manager, scheduler, node agents) started
 * and stopped with it, in a late phase so that the API server serves first and stops last.
 */
public final class ComponentLifecycle implements SmartLifecycle {

    private final boolean enabled;
    private final Runnable start;
    private final Runnable stop;
    private final int phase;
    private volatile boolean running;

    /** @param enabled false: the component is not started (it is still stopped, harmlessly) */
    public ComponentLifecycle(boolean enabled, Runnable start, Runnable stop, int phase) {
        this.enabled = enabled;
        this.start = start;
        this.stop = stop;
        this.phase = phase;
    }

    @Override
    public void start() {
        if (enabled) {
            start.run();
        }
        running = true;
    }

    @Override
    public void stop() {
        stop.run();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
