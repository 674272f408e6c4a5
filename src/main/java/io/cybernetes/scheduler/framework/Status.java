package io.cybernetes.scheduler.framework;

import java.util.List;

/**
 * A plugin's verdict, as the framework's Status: Success; Unschedulable (the pod may fit
 * once something changes, or by preempting others); UnschedulableAndUnresolvable (no
 * preemption on this node can help); Error (the plugin failed). Reasons are the phrases
 * that end up in "0/5 nodes are available: 3 Insufficient cpu, ...".
 */
public record Status(Code code, List<String> reasons, String plugin) {

    public enum Code { SUCCESS, ERROR, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE }

    public static final Status SUCCESS = new Status(Code.SUCCESS, List.of(), "");

    public Status {
        reasons = List.copyOf(reasons);
        plugin = plugin == null ? "" : plugin;
    }

    public static Status unschedulable(String... reasons) {
        return new Status(Code.UNSCHEDULABLE, List.of(reasons), "");
    }

    public static Status unresolvable(String... reasons) {
        return new Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, List.of(reasons), "");
    }

    public static Status error(String reason) {
        return new Status(Code.ERROR, List.of(reason), "");
    }

    public boolean isSuccess() {
        return code == Code.SUCCESS;
    }

    /** The same verdict, signed by the plugin that gave it. */
    public Status from(String pluginName) {
        return new Status(code, reasons, pluginName);
    }
}
