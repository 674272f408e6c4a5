'use strict';
/*
 * The dashboard's DaemonSets, StatefulSets, claims and volumes, and HorizontalPodAutoscalers
 * (on the workloads tab), listed while that tab is open as services.js lists its kinds.
 */

Object.assign(KINDS, {
  daemonsets: { path: '/apis/apps/v1/daemonsets', nsPath: ns => `/apis/apps/v1/namespaces/${ns}/daemonsets`,
    namespaced: true, apiVersion: 'apps/v1', kind: 'DaemonSet', listed: true },
  statefulsets: { path: '/apis/apps/v1/statefulsets', nsPath: ns => `/apis/apps/v1/namespaces/${ns}/statefulsets`,
    namespaced: true, apiVersion: 'apps/v1', kind: 'StatefulSet', listed: true },
  persistentvolumeclaims: { path: '/api/v1/persistentvolumeclaims',
    nsPath: ns => `/api/v1/namespaces/${ns}/persistentvolumeclaims`, namespaced: true, apiVersion: 'v1',
    kind: 'PersistentVolumeClaim', listed: true },
  horizontalpodautoscalers: { path: '/apis/autoscaling/v2/horizontalpodautoscalers',
    nsPath: ns => `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, namespaced: true,
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', listed: true },
});

// app.js made its stores and kind index before these kinds joined
for (const plural of ['daemonsets', 'statefulsets', 'persistentvolumeclaims', 'horizontalpodautoscalers']) {
  S.store[plural] = new Map();
  BY_KIND[KINDS[plural].kind] = plural;
}

function sorted(plural) {
  return [...(S.store[plural] || new Map()).values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
}

function table(title, test, plural, head, rows) {
  const hidden = S.hidden[plural] ? `<p class="muted">${esc(S.hidden[plural])}</p>` : '';
  return `<section class="card"><h2>${title} (${rows.length})</h2>${hidden}<div class="scroll"><table data-test="${test}">
    <thead><tr>${head.map(h => `<th>${h}</th>`).join('')}</tr></thead>
    <tbody>${rows.join('') || `<tr><td colspan="${head.length}" class="muted">no ${title} visible</td></tr>`}</tbody></table></div></section>`;
}

function condition(o, type) {
  return (((o.status || {}).conditions) || []).find(c => c.type === type);
}

/** DaemonSets with their pods per node, StatefulSets with their ordinals, claims with their volumes, autoscalers. */
function renderStateful() {
  const ds = sorted('daemonsets').map(d => {
    const s = d.status || {};
    return `<tr data-daemonset="${esc(keyOf(d))}"><td>${link('DaemonSet', d)}</td>
      <td data-test="counts">${s.desiredNumberScheduled || 0} / ${s.currentNumberScheduled || 0} / ${s.numberReady || 0} / ${s.updatedNumberScheduled || 0} / ${s.numberAvailable || 0}</td>
      <td>${s.numberMisscheduled || 0}</td><td>${esc(((d.spec.updateStrategy || {}).type) || 'RollingUpdate')}</td></tr>`;
  });
  const sts = sorted('statefulsets').map(st => {
    const s = st.status || {};
    return `<tr data-statefulset="${esc(keyOf(st))}"><td>${link('StatefulSet', st)}</td>
      <td data-test="counts">${s.readyReplicas || 0} / ${st.spec.replicas ?? 1}</td><td>${s.updatedReplicas || 0}</td>
      <td>${esc(st.spec.podManagementPolicy || 'OrderedReady')}</td><td>${esc(st.spec.serviceName || '')}</td></tr>`;
  });
  const claims = sorted('persistentvolumeclaims').map(c => {
    const s = c.status || {};
    const phase = s.phase || 'Pending';
    return `<tr data-claim="${esc(keyOf(c))}"><td>${link('PersistentVolumeClaim', c)}</td>
      <td><span class="pill ${phase === 'Bound' ? 'ok' : 'warn'}" data-test="phase">${esc(phase)}</span></td>
      <td>${esc(c.spec.volumeName || '')}</td><td>${esc(((s.capacity || {}).storage) || ((c.spec.resources || {}).requests || {}).storage || '')}</td>
      <td>${esc(c.spec.storageClassName || '')}</td></tr>`;
  });
  const hpas = sorted('horizontalpodautoscalers').map(h => {
    const s = h.status || {};
    const active = condition(h, 'ScalingActive');
    const limited = condition(h, 'ScalingLimited');
    const why = active && active.status === 'False' ? active.message : (limited && limited.status === 'True' ? limited.message : '');
    const ref = h.spec.scaleTargetRef || {};
    return `<tr data-hpa="${esc(keyOf(h))}"><td>${link('HorizontalPodAutoscaler', h)}</td><td>${esc(ref.kind + '/' + ref.name)}</td>
      <td data-test="targets">${esc(hpaTargets(h))}</td><td data-test="replicas">${s.currentReplicas || 0} → ${s.desiredReplicas || 0}</td>
      <td>${h.spec.minReplicas ?? 1}–${h.spec.maxReplicas}</td><td class="wrap">${esc(why || '')}</td></tr>`;
  });
  return table('DaemonSets', 'daemonsets', 'daemonsets', ['Name', 'Desired / current / ready / updated / available',
    'Misscheduled', 'Strategy'], ds)
    + table('StatefulSets', 'statefulsets', 'statefulsets', ['Name', 'Ready', 'Updated', 'Pod management', 'Service'], sts)
    + table('PersistentVolumeClaims', 'claims', 'persistentvolumeclaims', ['Name', 'Status', 'Volume', 'Capacity',
      'Class'], claims)
    + table('HorizontalPodAutoscalers', 'autoscalers', 'horizontalpodautoscalers', ['Name', 'Target', 'Metrics',
      'Replicas (now → wanted)', 'Bounds', 'Limited by'], hpas);
}

/** Each metric's current value against its target, as kubectl get hpa shows them. */
function hpaTargets(h) {
  const current = (h.status || {}).currentMetrics || [];
  return (h.spec.metrics || []).map((m, i) => {
    const src = m.resource || m.containerResource;
    if (!src) return m.type;
    const now = ((current[i] || {})[m.resource ? 'resource' : 'containerResource'] || {}).current || {};
    if (src.target.averageUtilization != null) {
      return `${src.name}: ${now.averageUtilization != null ? now.averageUtilization + '%' : '<unknown>'}/${src.target.averageUtilization}%`;
    }
    return `${src.name}: ${now.averageValue || '<unknown>'}/${src.target.averageValue}`;
  }).join(', ');
}
