package io.cybernetes.admission;

import io.cybernetes.api.PrometheusText;

import java.util.List;

/**
 * The configured plugins in order; itself a mutating and a validating plugin, as the
 * apiserver's chain is. Mutating plugins run in order on the live object; validating
 * plugins in order on a copy; reserving plugins hear when a write they admitted fails
 * or its object is finally removed.
 */
public final class AdmissionChain implements MutatingAdmissionPlugin, ValidatingAdmissionPlugin, Reserving,
        PrometheusText.Source {

    /** Kubernetes' buckets for admission latencies, in seconds. */
    private static final double[] BUCKETS = {0.005, 0.025, 0.1, 0.5, 1.0, 2.5};

    private final List<AdmissionPlugin> plugins;
    private final PrometheusText.Histograms pluginDurations = new PrometheusText.Histograms(BUCKETS, "name",
            "operation", "rejected", "type");
    private final PrometheusText.Histograms stepDurations = new PrometheusText.Histograms(BUCKETS, "operation",
            "rejected", "type");

    public AdmissionChain(List<AdmissionPlugin> plugins) {
        this.plugins = List.copyOf(plugins);
    }

    @Override
    public String name() {
        return "chain";
    }

    public List<String> pluginNames() {
        return plugins.stream().map(AdmissionPlugin::name).toList();
    }

    @Override
    public void admit(Attributes a) {
        long step = System.nanoTime();
        boolean rejected = true;
        try {
            for (AdmissionPlugin p : plugins) {
                if (p instanceof MutatingAdmissionPlugin m && p.handles(a)) {
                    long start = System.nanoTime();
                    boolean refused = true;
                    try {
                        m.admit(a);
                        refused = false;
                    } finally {
                        observe(pluginDurations, start, p.name(), a, refused, "admit");
                    }
                }
            }
            rejected = false;
        } finally {
            observe(stepDurations, step, null, a, rejected, "admit");
        }
    }

    /** Records how long a plugin (a name) or the whole step (none) took, labelled as Kubernetes labels it. */
    private static void observe(PrometheusText.Histograms h, long start, String name, Attributes a, boolean rejected,
                                String type) {
        double seconds = (System.nanoTime() - start) / 1e9;
        String operation = a.operation().name();
        String refused = rejected ? "true" : "false";
        if (name == null) {
            h.observe(seconds, operation, refused, type);
        } else {
            h.observe(seconds, name, operation, refused, type);
        }
    }

    @Override
    public void collect(PrometheusText out) {
        pluginDurations.writeTo(out, "apiserver_admission_controller_admission_duration_seconds", "[STABLE] Admission"
                + " controller latency histogram in seconds, identified by name and broken out for each operation and"
                + " API resource and type (validate or admit).");
        stepDurations.writeTo(out, "apiserver_admission_step_admission_duration_seconds", "[STABLE] Admission sub-step"
                + " latency histogram in seconds, broken out for each operation and API resource and step type"
                + " (validate or admit).");
    }

    @Override
    public void validate(Attributes a) {
        long step = System.nanoTime();
        boolean rejected = true;
        try {
            Attributes copy = null;
            for (int i = 0; i < plugins.size(); i++) {
                AdmissionPlugin p = plugins.get(i);
                if (p instanceof ValidatingAdmissionPlugin v && p.handles(a)) {
                    if (copy == null) {
                        copy = a.readOnlyCopy();
                    }
                    long start = System.nanoTime();
                    boolean refused = true;
                    try {
                        v.validate(copy);
                        refused = false;
                    } catch (RuntimeException e) {
                        // what earlier plugins reserved for this write is given back
                        releaseBefore(i, a);
                        throw e;
                    } finally {
                        observe(pluginDurations, start, p.name(), a, refused, "validate");
                    }
                }
            }
            rejected = false;
        } finally {
            observe(stepDurations, step, null, a, rejected, "validate");
        }
    }

    private void releaseBefore(int index, Attributes a) {
        for (int j = 0; j < index; j++) {
            if (plugins.get(j) instanceof Reserving r && plugins.get(j).handles(a)) {
                r.release(a);
            }
        }
    }

    @Override
    public void release(Attributes a) {
        releaseBefore(plugins.size(), a);
    }

    /** Every reserving plugin hears of a removal, whether or not it looks at deletes. */
    @Override
    public void removed(Attributes a) {
        for (AdmissionPlugin p : plugins) {
            if (p instanceof Reserving r) {
                r.removed(a);
            }
        }
    }
}
