package io.cybernetes.api;

/** The Kubernetes version this project speaks, and how its components name themselves to the API server. */
public final class Version {

    /** What {@code /version} answers as gitVersion (kubectl compares its own with it). */
    public static final String GIT_VERSION = "v1.32.0-cybernetes";

    private Version() {
    }

    /**
     * A component's User-Agent as Kubernetes' components build theirs
     * ({@code kube-scheduler/v1.32.0 (linux/amd64) kubernetes/...}): the server records the
     * component's writes in managedFields under the part before the first slash.
     */
    public static String userAgent(String component) {
        return component + "/" + GIT_VERSION + " (" + System.getProperty("os.name").toLowerCase() + "/"
                + System.getProperty("os.arch") + ") cybernetes";
    }
}
