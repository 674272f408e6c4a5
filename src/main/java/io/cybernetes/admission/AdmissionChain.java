package io.cybernetes.admission;

import java.util.List;

/**
 * The configured plugins in order; itself a mutating and a validating plugin, as the
 * apiserver's chain is. Mutating plugins run in order on the live object; validating
 * plugins in order on a copy; reserving plugins hear when a write they admitted fails
 * or its object is finally removed.
 */
public final class AdmissionChain implements MutatingAdmissionPlugin, ValidatingAdmissionPlugin, Reserving {

    private final List<AdmissionPlugin> plugins;

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
        for (AdmissionPlugin p : plugins) {
            if (p instanceof MutatingAdmissionPlugin m && p.handles(a)) {
                m.admit(a);
            }
        }
    }

    @Override
    public void validate(Attributes a) {
        Attributes copy = null;
        for (int i = 0; i < plugins.size(); i++) {
            AdmissionPlugin p = plugins.get(i);
            if (p instanceof ValidatingAdmissionPlugin v && p.handles(a)) {
                if (copy == null) {
                    copy = a.readOnlyCopy();
                }
                try {
                    v.validate(copy);
                } catch (RuntimeException e) {
                    // what earlier plugins reserved for this write is given back
                    releaseBefore(i, a);
                    throw e;
                }
            }
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
