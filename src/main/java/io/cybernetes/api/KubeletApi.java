package io.cybernetes.api;

/**
 * What the API server and the kubelets (the node agents' endpoints) agree on: who the API
 * server is to a kubelet, and the kubelet's paths and query parameters, as Kubernetes'
 * kubelet serves them.
 */
public final class KubeletApi {

    /** The common name of the client certificate the API server presents to kubelets (kubeadm's). */
    public static final String CLIENT_COMMON_NAME = "kube-apiserver-kubelet-client";
    /** Its full subject. */
    public static final String CLIENT_SUBJECT = "CN=" + CLIENT_COMMON_NAME + ",O=kubeadm:cluster-admins";

    /** What the node's containers use, in the Prometheus text format (what the metrics-server scrapes). */
    public static final String RESOURCE_METRICS = "/metrics/resource";
    /** {@code /containerLogs/{namespace}/{pod}/{container}}. */
    public static final String CONTAINER_LOGS = "/containerLogs/";
    /** {@code /exec/{namespace}/{pod}/{container}?command=...&input=1&output=1&error=1&tty=1}. */
    public static final String EXEC = "/exec/";
    /** {@code /portForward/{namespace}/{pod}[?port=8080...]}. */
    public static final String PORT_FORWARD = "/portForward/";
    /** {@code /attach/{namespace}/{pod}/{container}?input=1&output=1&error=1&tty=1}. */
    public static final String ATTACH = "/attach/";

    private KubeletApi() {
    }
}
