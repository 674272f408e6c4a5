'use strict';
/*
 * The dashboard's Services, Jobs and CronJobs (on the workloads tab). Only that tab shows
 * them, so they are listed every few seconds while it is open rather than watched: the
 * watches app.js keeps open already take most of the six connections a browser allows a server.
 */

/** Lists the kinds marked listed into the store, while the workloads tab is open. */
async function pollListed() {
  if (S.tab !== 'workloads' || !S.token) return;
  await Promise.all(Object.keys(KINDS).filter(p => KINDS[p].listed).map(async plural => {
    const r = await api(pathFor(plural));
    if (r.status !== 200) {
      S.hidden[plural] = failure(r);
      return;
    }
    delete S.hidden[plural];
    const store = S.store[plural];
    store.clear();
    for (const o of r.body.items || []) store.set(keyOf(o), o);
  }));
  scheduleRender();
}

/** Services with the endpoints their slices list: ready ones, and all. */
function renderServices() {
  const svcs = [...S.store.services.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  const slices = [...S.store.endpointslices.values()];
  const rows = svcs.map(svc => {
    const spec = svc.spec || {};
    const mine = slices.filter(sl => sl.metadata.namespace === svc.metadata.namespace
      && (sl.metadata.labels || {})['kubernetes.io/service-name'] === svc.metadata.name);
    const eps = mine.flatMap(sl => (sl.endpoints || []).map(e => ({ e, ports: sl.ports || [] })));
    const ready = eps.filter(x => !x.e.conditions || x.e.conditions.ready !== false);
    const shown = ready.slice(0, 3).map(x => esc((x.e.addresses || [])[0] + (x.ports[0] && x.ports[0].port
      ? ':' + x.ports[0].port : ''))).join(', ');
    const ingress = (((svc.status || {}).loadBalancer || {}).ingress || []).map(i => i.ip || i.hostname);
    const external = spec.type === 'LoadBalancer' ? (ingress.join(', ') || 'pending') : (spec.externalName || '');
    const ports = (spec.ports || []).map(p => `${p.port}${p.nodePort ? ':' + p.nodePort : ''}/${p.protocol || 'TCP'}`)
      .join(', ');
    return `<tr data-service="${esc(keyOf(svc))}"><td>${link('Service', svc)}</td><td>${esc(spec.type || '')}</td>
      <td>${esc(spec.clusterIP || '')}</td><td>${esc(external)}</td><td>${esc(ports)}</td>
      <td data-test="endpoints">${ready.length} ready of ${eps.length}${shown ? ' — ' + shown : ''}${ready.length > 3 ? ', …' : ''}</td></tr>`;
  }).join('');
  return `<section class="card"><h2>Services (${svcs.length})</h2><div class="scroll"><table data-test="services">
    <thead><tr><th>Name</th><th>Type</th><th>Cluster IP</th><th>External</th><th>Ports</th><th>Endpoints</th></tr></thead>
    <tbody>${rows || '<tr><td colspan="6" class="muted">no Services visible</td></tr>'}</tbody></table></div></section>`;
}

function jobState(j) {
  const on = ((j.status || {}).conditions || []).filter(c => c.status === 'True').map(c => c.type);
  for (const t of ['Complete', 'Failed', 'FailureTarget', 'SuccessCriteriaMet', 'Suspended']) {
    if (on.includes(t)) return t;
  }
  return 'Running';
}

/** Jobs with their counts, and CronJobs with their schedule and the runs they have made. */
function renderBatch() {
  const jobs = [...S.store.jobs.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  const crons = [...S.store.cronjobs.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  const jobRow = j => {
    const s = j.status || {};
    const state = jobState(j);
    const failedCond = ((s.conditions || []).find(c => c.type === 'Failed' && c.status === 'True'));
    return `<tr data-job="${esc(keyOf(j))}"><td>${link('Job', j)}</td>
      <td><span class="pill ${state === 'Failed' ? 'warn' : 'ok'}" title="${esc(failedCond ? failedCond.message : '')}">${esc(state)}</span></td>
      <td data-test="completions">${s.succeeded || 0}/${j.spec.completions ?? 1}</td><td>${s.active || 0}</td>
      <td>${s.failed || 0}</td><td>${s.startTime ? age(s.startTime) : ''}</td></tr>`;
  };
  const cronRows = crons.map(c => {
    const runs = jobs.filter(j => ownedBy(j, c.metadata.uid));
    const st = c.status || {};
    return `<tr data-cronjob="${esc(keyOf(c))}"><td>${link('CronJob', c)}</td><td><code>${esc(c.spec.schedule)}</code>
      ${c.spec.timeZone ? esc(c.spec.timeZone) : ''}</td><td>${c.spec.suspend ? 'suspended' : ''}</td>
      <td>${(st.active || []).length}</td><td>${st.lastScheduleTime ? age(st.lastScheduleTime) + ' ago' : 'never'}</td>
      <td class="wrap" data-test="runs">${runs.map(j => `${link('Job', j)} <span class="pill ${jobState(j) === 'Failed' ? 'warn' : 'ok'}">${esc(jobState(j))}</span>`).join(' ') || '<span class="muted">none</span>'}</td></tr>`;
  }).join('');
  return `<section class="card"><h2>Jobs (${jobs.length})</h2><div class="scroll"><table data-test="jobs">
    <thead><tr><th>Name</th><th>Status</th><th>Completions</th><th>Active</th><th>Failed</th><th>Running for</th></tr></thead>
    <tbody>${jobs.map(jobRow).join('') || '<tr><td colspan="6" class="muted">no Jobs visible</td></tr>'}</tbody></table></div></section>
    <section class="card"><h2>CronJobs (${crons.length})</h2><div class="scroll"><table data-test="cronjobs">
    <thead><tr><th>Name</th><th>Schedule</th><th></th><th>Active</th><th>Last run</th><th>Runs</th></tr></thead>
    <tbody>${cronRows || '<tr><td colspan="6" class="muted">no CronJobs visible</td></tr>'}</tbody></table></div></section>`;
}
