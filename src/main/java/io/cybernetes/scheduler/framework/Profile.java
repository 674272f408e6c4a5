package io.cybernetes.scheduler.framework;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plugins of one scheduler profile, by extension point in the order they run, and
 * each score plugin's weight.
 */
public final class Profile {

    final List<Plugin.PreFilter> preFilters = new ArrayList<>();
    final List<Plugin.PreFilterExtensions> preFilterExtensions = new ArrayList<>();
    final List<Plugin.Filter> filters = new ArrayList<>();
    final List<Plugin.PostFilter> postFilters = new ArrayList<>();
    final List<Plugin.PreScore> preScores = new ArrayList<>();
    final Map<Plugin.Score, Long> scores = new LinkedHashMap<>();
    final List<Plugin.Reserve> reserves = new ArrayList<>();
    final List<Plugin.Bind> binds = new ArrayList<>();
    final List<Plugin.HandleAware> handleAware = new ArrayList<>();
    /** Every plugin by name, for the queueing hints of the plugins that rejected a pod. */
    final Map<String, Plugin> byName = new LinkedHashMap<>();
    private Plugin.QueueSort queueSort;

    /** Adds the plugin at every extension point it implements; {@code weight} counts for scoring. */
    public Profile add(Plugin plugin, long weight) {
        byName.put(plugin.name(), plugin);
        if (plugin instanceof Plugin.QueueSort p) {
            if (queueSort != null) {
                throw new IllegalArgumentException("a profile has one QueueSort plugin: " + queueSort.name()
                        + " and " + p.name());
            }
            queueSort = p;
        }
        if (plugin instanceof Plugin.PreFilter p) {
            preFilters.add(p);
        }
        if (plugin instanceof Plugin.PreFilterExtensions p) {
            preFilterExtensions.add(p);
        }
        if (plugin instanceof Plugin.Filter p) {
            filters.add(p);
        }
        if (plugin instanceof Plugin.PostFilter p) {
            postFilters.add(p);
        }
        if (plugin instanceof Plugin.PreScore p) {
            preScores.add(p);
        }
        if (plugin instanceof Plugin.Score p) {
            scores.put(p, weight);
        }
        if (plugin instanceof Plugin.Reserve p) {
            reserves.add(p);
        }
        if (plugin instanceof Plugin.Bind p) {
            binds.add(p);
        }
        if (plugin instanceof Plugin.HandleAware p) {
            handleAware.add(p);
        }
        return this;
    }

    public Profile add(Plugin plugin) {
        return add(plugin, 1);
    }

    /** The plugin that orders the scheduling queue; a profile without one cannot schedule. */
    public Plugin.QueueSort queueSort() {
        if (queueSort == null) {
            throw new IllegalStateException("the profile has no QueueSort plugin (PrioritySort)");
        }
        return queueSort;
    }
}
