'use strict';
/*
 * The Cybernetes dashboard. Every call goes to the ordinary API with the signed-in user's
 * own bearer token (kept in this tab's sessionStorage only), so the page shows what RBAC
 * lets that user see, and says so where something is hidden. Objects are followed through
 * the watch API (a list, then a watch from its resourceVersion, again after a 410); the
 * controllers' reconcile status is read every two seconds for the charts.
 */

const KINDS = {
  nodes: { path: '/api/v1/nodes', namespaced: false, apiVersion: 'v1', kind: 'Node' },
  pods: { path: '/api/v1/pods', nsPath: ns => `/api/v1/namespaces/${ns}/pods`, namespaced: true,
    apiVersion: 'v1', kind: 'Pod' },
  deployments: { path: '/apis/apps/v1/deployments', nsPath: ns => `/apis/apps/v1/namespaces/${ns}/deployments`,
    namespaced: true, apiVersion: 'apps/v1', kind: 'Deployment' },
  replicasets: { path: '/apis/apps/v1/replicasets', nsPath: ns => `/apis/apps/v1/namespaces/${ns}/replicasets`,
    namespaced: true, apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  events: { path: '/api/v1/events', nsPath: ns => `/api/v1/namespaces/${ns}/events`, namespaced: true,
    apiVersion: 'v1', kind: 'Event' },
  services: { path: '/api/v1/services', nsPath: ns => `/api/v1/namespaces/${ns}/services`, namespaced: true,
    apiVersion: 'v1', kind: 'Service', listed: true },
  endpointslices: { path: '/apis/discovery.k8s.io/v1/endpointslices',
    nsPath: ns => `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, namespaced: true,
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', listed: true },
  jobs: { path: '/apis/batch/v1/jobs', nsPath: ns => `/apis/batch/v1/namespaces/${ns}/jobs`, namespaced: true,
    apiVersion: 'batch/v1', kind: 'Job', listed: true },
  cronjobs: { path: '/apis/batch/v1/cronjobs', nsPath: ns => `/apis/batch/v1/namespaces/${ns}/cronjobs`,
    namespaced: true, apiVersion: 'batch/v1', kind: 'CronJob', listed: true },
};
const BY_KIND = Object.fromEntries(Object.entries(KINDS).map(([plural, k]) => [k.kind, plural]));
const WINDOW_SECONDS = 15 * 60;
const STATUS_ROOT = '/apis/status.cybernetes.io/v1';

const emptySeries = () => ({ reconcileRate: { t: [], v: [] }, queueDepth: { t: [], v: [] },
  scheduledRate: { t: [], v: [] } });

const S = {
  token: sessionStorage.getItem('cybernetes.token'),
  ns: sessionStorage.getItem('cybernetes.ns') || '',
  user: '',
  tab: 'cluster',
  store: Object.fromEntries(Object.keys(KINDS).map(k => [k, new Map()])),
  hidden: {},
  watches: [],
  controllers: null,
  controllersError: '',
  series: emptySeries(),
  scheduler: null,
  schedulerError: '',
  last: null,
  why: {},
  eventFilter: { ns: '', object: '', type: '' },
  notices: [],
  poller: null,
  typed: {},
  openDetails: new Set(),
};

// ---- helpers

const $ = sel => document.querySelector(sel);
const esc = v => String(v ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;',
  "'": '&#39;' }[c]));
const keyOf = o => (o.metadata.namespace ? o.metadata.namespace + '/' : '') + o.metadata.name;
const sleep = ms => new Promise(r => setTimeout(r, ms));

function cpuMilli(q) {
  if (q == null) return 0;
  const s = String(q);
  if (s.endsWith('m')) return parseFloat(s);
  return parseFloat(s) * 1000;
}

function bytes(q) {
  if (q == null) return 0;
  const m = String(q).match(/^([0-9.]+)([a-zA-Z]*)$/);
  if (!m) return 0;
  const units = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
  return parseFloat(m[1]) * (units[m[2]] ?? 1);
}

function podRequests(p) {
  let cpu = 0; let mem = 0;
  for (const c of p.spec.containers || []) {
    const r = (c.resources && c.resources.requests) || {};
    cpu += cpuMilli(r.cpu); mem += bytes(r.memory);
  }
  return { cpu, mem };
}

function age(ts) {
  if (!ts) return '';
  const s = Math.max(0, (Date.now() - Date.parse(ts)) / 1000);
  if (s < 120) return Math.round(s) + 's';
  if (s < 7200) return Math.round(s / 60) + 'm';
  if (s < 172800) return Math.round(s / 3600) + 'h';
  return Math.round(s / 86400) + 'd';
}

function condition(o, type) {
  return ((o.status && o.status.conditions) || []).find(c => c.type === type);
}

function terminal(p) {
  return p.status && (p.status.phase === 'Succeeded' || p.status.phase === 'Failed');
}

function link(kind, o) {
  return `<a class="obj" href="#" data-detail="${esc(kind)}|${esc(o.metadata.namespace || '')}|${esc(o.metadata.name)}">`
    + `${esc(o.metadata.namespace && !S.ns ? o.metadata.namespace + '/' : '')}${esc(o.metadata.name)}</a>`;
}

function notice(text, bad) {
  S.notices.push({ text, bad, at: Date.now() });
  S.notices = S.notices.slice(-4);
  renderNotices();
}

// ---- the API, with the user's token

async function api(path, opts = {}) {
  const headers = Object.assign({ Authorization: 'Bearer ' + S.token, Accept: 'application/json' }, opts.headers);
  // the server indents JSON for browsers, as kube-apiserver does; this page reads it, so needs none
  const compact = path + (path.includes('?') ? '&' : '?') + 'pretty=false';
  const r = await fetch(compact, Object.assign({}, opts, { headers }));
  const text = await r.text();
  let body = text;
  try { body = JSON.parse(text); } catch (e) { /* not JSON */ }
  if (r.status === 401 && S.token) {
    signOut('The server did not accept the token (401 Unauthorized).');
  }
  return { status: r.status, body };
}

function failure(r) {
  const msg = r.body && r.body.message ? r.body.message : (typeof r.body === 'string' ? r.body : '');
  return `${r.status} ${r.body && r.body.reason ? r.body.reason : ''}: ${msg}`.trim();
}

function pathFor(plural) {
  const k = KINDS[plural];
  return k.namespaced && S.ns ? k.nsPath(S.ns) : k.path;
}

/** Lists, then watches from the list's revision; relists after a 410 or a broken stream. */
async function follow(plural) {
  const ctl = new AbortController();
  S.watches.push(ctl);
  const store = S.store[plural];
  const base = pathFor(plural);
  let rv = null;
  const list = async () => {
    const r = await api(base, { signal: ctl.signal });
    if (r.status !== 200) {
      S.hidden[plural] = failure(r);
      render();
      return false;
    }
    delete S.hidden[plural];
    store.clear();
    for (const o of r.body.items || []) store.set(keyOf(o), o);
    rv = r.body.metadata.resourceVersion;
    render();
    return true;
  };
  while (!ctl.signal.aborted) {
    try {
      if (rv === null && !(await list())) {
        await sleep(10000);
        continue;
      }
      const r = await fetch(`${base}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
        { headers: { Authorization: 'Bearer ' + S.token, Accept: 'application/json' }, signal: ctl.signal });
      if (r.status !== 200) {
        rv = null;
        await sleep(1000);
        continue;
      }
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      let expired = false;
      while (!expired) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (!line) continue;
          const ev = JSON.parse(line);
          if (ev.type === 'ERROR') {
            expired = true;
            rv = null;
            break;
          }
          rv = ev.object.metadata.resourceVersion;
          if (ev.type === 'BOOKMARK') continue;
          if (ev.type === 'DELETED') store.delete(keyOf(ev.object)); else store.set(keyOf(ev.object), ev.object);
          if (plural === 'events' && store.size > 2000) {
            store.delete(store.keys().next().value);
          }
          scheduleRender();
        }
      }
    } catch (e) {
      if (ctl.signal.aborted) return;
      await sleep(1000);
    }
  }
}

// ---- reconcile status and the charts' series: the server's last 15 minutes, then our own polls

function push(name, t, v) {
  const ser = S.series[name];
  if (ser.t.length && t <= ser.t[ser.t.length - 1]) return;
  ser.t.push(t);
  ser.v.push(v);
  while (ser.t.length && ser.t[0] < t - WINDOW_SECONDS) { ser.t.shift(); ser.v.shift(); }
}

/** Rates from a counter's samples, gauges as they are. */
function backfill(samples, counter, counterSeries, gauge, gaugeSeries) {
  if (!samples || !samples.points) return;
  const ci = samples.names.indexOf(counter);
  const gi = gauge ? samples.names.indexOf(gauge) : -1;
  let prev = null;
  for (const p of samples.points) {
    const t = Date.parse(p.time) / 1000;
    if (prev && ci >= 0) push(counterSeries, t, Math.max(0, (p.values[ci] - prev.values[ci]) / Math.max(0.001, t - prev.t)));
    if (gi >= 0) push(gaugeSeries, t, p.values[gi]);
    prev = { t, values: p.values };
  }
}

async function loadSamples() {
  const [c, sch] = await Promise.all([api(STATUS_ROOT + '/controllers?samples=true'),
    api(STATUS_ROOT + '/schedulers?samples=true')]);
  if (c.status === 200) backfill(c.body.samples, 'reconciles', 'reconcileRate', 'queueDepth', 'queueDepth');
  if (sch.status === 200) backfill(sch.body.samples, 'bound', 'scheduledRate', null, null);
}

/** API Priority and Fairness's levels, from the server's dump (seats in use, nominal, borrowed, waiting). */
function parseLevels(text) {
  return String(text).trim().split('\n').slice(1).filter(l => l.trim()).map(l => {
    const [name, activeQueues, idle, waiting, seats, nominal, lendable, borrowed] = l.split(',').map(x => x.trim());
    return { name, activeQueues: +activeQueues, waiting: +waiting, seats: +seats, nominal, lendable: +lendable,
      borrowed: +borrowed };
  });
}

async function pollStatus() {
  const [r, sch, apf] = await Promise.all([api(STATUS_ROOT + '/controllers'), api(STATUS_ROOT + '/schedulers'),
    api('/debug/api_priority_and_fairness/dump_priority_levels')]);
  S.levels = apf.status === 200 ? parseLevels(apf.body) : null;
  S.levelsError = apf.status === 200 ? '' : failure(apf);
  const now = Date.now() / 1000;
  if (r.status !== 200) {
    S.controllers = null;
    S.controllersError = failure(r);
  } else {
    // each controller's reconciles per second since the last poll
    const before = Object.fromEntries((S.controllers || []).map(c => [c.metadata.name, c]));
    for (const c of r.body.items || []) {
      const b = before[c.metadata.name];
      c.rate = b && S.last ? Math.max(0, (c.status.reconciles - b.status.reconciles) / Math.max(0.001, now - S.last.t))
        : (b ? b.rate : 0);
    }
    S.controllers = r.body.items || [];
    S.controllersError = '';
  }
  S.scheduler = sch.status === 200 ? sch.body.items[0] : null;
  S.schedulerError = sch.status === 200 ? '' : failure(sch);
  const reconciles = (S.controllers || []).reduce((n, x) => n + (x.status.reconciles || 0), 0);
  const depth = (S.controllers || []).reduce((n, x) => n + (x.status.queueDepth || 0), 0);
  const bound = S.scheduler ? S.scheduler.status.bound || 0 : null;
  const prev = S.last;
  S.last = { t: now, reconciles, bound };
  if (prev) {
    const dt = Math.max(0.001, now - prev.t);
    if (S.controllers) {
      push('reconcileRate', now, Math.max(0, (reconciles - prev.reconciles) / dt));
      push('queueDepth', now, depth);
    }
    if (bound !== null && prev.bound !== null) push('scheduledRate', now, Math.max(0, (bound - prev.bound) / dt));
  }
  if (S.tab === 'controllers' || S.tab === 'scheduler') scheduleRender();
}

// ---- rendering

let renderQueued = false;
function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  setTimeout(() => { renderQueued = false; render(); }, 150);
}

function renderNotices() {
  const hidden = Object.entries(S.hidden).map(([k, why]) =>
    `<div class="notice" data-test="hidden">Hidden: ${esc(k)} ${!KINDS[k].namespaced ? '(cluster-wide)'
      : S.ns ? 'in ' + esc(S.ns) : 'in all namespaces'} — ${esc(why)}</div>`);
  const recent = S.notices.filter(n => Date.now() - n.at < 15000).map(n =>
    `<div class="notice ${n.bad ? 'bad' : ''}" role="alert" data-test="notice">${esc(n.text)}</div>`);
  $('#notices').innerHTML = hidden.join('') + recent.join('');
}

let lastHtml = '';
let pointerDown = false;

function render() {
  if (!S.token) return;
  renderNotices();
  if (pointerDown) { // never redraw under a click in progress: the button would be gone by the mouseup
    scheduleRender();
    return;
  }
  const view = { cluster: renderCluster, workloads: () => renderWorkloads() + renderStateful() + renderServices() + renderBatch(),
    controllers: renderControllers,
    scheduler: renderScheduler, events: renderEvents }[S.tab];
  const html = view();
  if (html === lastHtml && S.tab !== 'controllers' && S.tab !== 'scheduler') return;
  lastHtml = html;
  const focused = document.activeElement && document.activeElement.id;
  $('#view').innerHTML = html;
  if (S.tab === 'controllers') drawCharts(['reconcileRate', 'queueDepth', 'scheduledRate']);
  if (S.tab === 'scheduler') drawCharts(['scheduledRate']);
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
}

function bar(used, total) {
  const pct = total > 0 ? Math.min(100, Math.round(used * 100 / total)) : 0;
  return `<div class="bar ${pct > 85 ? 'hot' : ''}" role="img" aria-label="${pct}%"><span style="width:${pct}%"></span></div>`;
}

function renderCluster() {
  const nodes = [...S.store.nodes.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const pods = [...S.store.pods.values()];
  const perNode = {};
  const phases = {};
  for (const p of pods) {
    const phase = p.metadata.deletionTimestamp ? 'Terminating' : (p.status && p.status.phase) || 'Pending';
    phases[phase] = (phases[phase] || 0) + 1;
    if (p.spec.nodeName && !terminal(p)) {
      const r = podRequests(p);
      const n = perNode[p.spec.nodeName] || (perNode[p.spec.nodeName] = { cpu: 0, mem: 0, pods: 0 });
      n.cpu += r.cpu; n.mem += r.mem; n.pods++;
    }
  }
  const zones = {};
  for (const n of nodes) {
    const z = (n.metadata.labels || {})['topology.kubernetes.io/zone'] || '(none)';
    zones[z] = zones[z] || { nodes: 0, pods: 0 };
    zones[z].nodes++;
    zones[z].pods += (perNode[n.metadata.name] || {}).pods || 0;
  }
  const rows = nodes.map(n => {
    const ready = condition(n, 'Ready');
    const st = ready ? ready.status : 'Unknown';
    const a = (n.status && (n.status.allocatable || n.status.capacity)) || {};
    const used = perNode[n.metadata.name] || { cpu: 0, mem: 0, pods: 0 };
    const cordoned = n.spec && n.spec.unschedulable;
    const taints = ((n.spec && n.spec.taints) || []).map(t => `${t.key}${t.value ? '=' + t.value : ''}:${t.effect}`);
    return `<tr data-node="${esc(n.metadata.name)}">
      <td>${link('Node', n)}</td>
      <td><span class="pill ${st === 'True' ? 'ok' : 'bad'}">${st === 'True' ? 'Ready' : st === 'False' ? 'NotReady' : 'Unknown'}</span>
        ${cordoned ? '<span class="pill warn">cordoned</span>' : ''}</td>
      <td>${esc((n.metadata.labels || {})['topology.kubernetes.io/zone'] || '')}</td>
      <td>${(used.cpu / 1000).toFixed(2)} / ${(cpuMilli(a.cpu) / 1000).toFixed(2)}${bar(used.cpu, cpuMilli(a.cpu))}</td>
      <td>${(used.mem / 1024 ** 3).toFixed(1)} / ${(bytes(a.memory) / 1024 ** 3).toFixed(1)} GiB${bar(used.mem, bytes(a.memory))}</td>
      <td>${used.pods} / ${esc(a.pods || '')}</td>
      <td class="wrap">${esc(taints.join(', '))}</td>
      <td><button type="button" data-action="${cordoned ? 'uncordon' : 'cordon'}" data-name="${esc(n.metadata.name)}">
        ${cordoned ? 'Uncordon' : 'Cordon'}</button></td></tr>`;
  }).join('');
  return `<div class="grid">
    <section class="card"><h2>Pods by phase</h2><div class="stats" data-test="phases">${Object.entries(phases).map(([k, v]) =>
      `<div class="stat"><b>${v}</b>${esc(k)}</div>`).join('') || '<span class="muted">no pods</span>'}</div></section>
    <section class="card"><h2>Spread per zone</h2><div class="stats">${Object.entries(zones).map(([z, v]) =>
      `<div class="stat"><b>${v.pods}</b>${esc(z)} · ${v.nodes} node${v.nodes === 1 ? '' : 's'}</div>`).join('')
      || '<span class="muted">no nodes visible</span>'}</div></section>
  </div>
  <section class="card"><h2>Nodes (${nodes.length})</h2><div class="scroll"><table data-test="nodes">
    <thead><tr><th>Name</th><th>Status</th><th>Zone</th><th>CPU requested / allocatable</th>
      <th>Memory</th><th>Pods</th><th>Taints</th><th>Action</th></tr></thead>
    <tbody>${rows}</tbody></table></div></section>`;
}

function ownedBy(o, uid) {
  return (o.metadata.ownerReferences || []).some(r => r.uid === uid);
}

function renderWorkloads() {
  const deps = [...S.store.deployments.values()].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  const sets = [...S.store.replicasets.values()];
  const pods = [...S.store.pods.values()];
  const rows = deps.map(d => {
    const s = d.status || {};
    const want = d.spec.replicas ?? 1;
    const conds = ((s.conditions) || []).map(c =>
      `<span class="pill ${c.status === 'True' ? 'ok' : 'warn'}" title="${esc(c.message)}">${esc(c.type)}: ${esc(c.reason || c.status)}</span>`).join(' ');
    const mine = sets.filter(rs => ownedBy(rs, d.metadata.uid))
      .sort((a, b) => (b.metadata.annotations || {})['deployment.kubernetes.io/revision']
        - (a.metadata.annotations || {})['deployment.kubernetes.io/revision']);
    const open = S.openDetails.has(keyOf(d));
    const setRows = !open ? '' : mine.map(rs => {
      const rsPods = pods.filter(p => ownedBy(p, rs.metadata.uid));
      return `<li>${link('ReplicaSet', rs)} — ${rs.spec.replicas ?? 0} wanted, ${(rs.status || {}).readyReplicas || 0} ready
        (revision ${esc((rs.metadata.annotations || {})['deployment.kubernetes.io/revision'] || '')})
        <ul>${rsPods.map(p => `<li>${link('Pod', p)} <span class="pill ${(p.status || {}).phase === 'Running' ? 'ok' : 'warn'}">${esc(p.metadata.deletionTimestamp ? 'Terminating' : (p.status || {}).phase || 'Pending')}</span> ${esc(p.spec.nodeName || '')}
          <button type="button" data-action="delete-pod" data-key="${esc(keyOf(p))}">Delete</button></li>`).join('')}</ul></li>`;
    }).join('');
    const id = 'scale-' + keyOf(d).replace(/[^a-z0-9-]/gi, '-');
    return `<tr data-deployment="${esc(keyOf(d))}">
      <td>${link('Deployment', d)}</td>
      <td data-test="counts">${want} / ${s.updatedReplicas || 0} / ${s.readyReplicas || 0} / ${s.availableReplicas || 0}</td>
      <td>${bar(s.updatedReplicas || 0, want)}</td>
      <td class="wrap">${conds}</td>
      <td><label class="muted" for="${esc(id)}">replicas</label>
        <input id="${esc(id)}" type="number" min="0" value="${esc(S.typed[id] ?? want)}" style="width:5em">
        <button type="button" data-action="scale" data-key="${esc(keyOf(d))}" data-input="${esc(id)}">Scale</button>
        <button type="button" data-action="restart" data-key="${esc(keyOf(d))}">Restart</button></td></tr>
      <tr><td colspan="5"><details data-key="${esc(keyOf(d))}" ${open ? 'open' : ''}><summary>ReplicaSets and pods (${mine.length})</summary><ul>${setRows}</ul></details></td></tr>`;
  }).join('');
  return `<section class="card"><h2>Deployments (${deps.length})</h2><div class="scroll"><table data-test="deployments">
    <thead><tr><th>Name</th><th>Desired / updated / ready / available</th><th>Rollout</th><th>Conditions</th>
    <th>Actions</th></tr></thead><tbody>${rows || '<tr><td colspan="5" class="muted">no Deployments visible</td></tr>'}</tbody></table></div></section>`;
}

function renderControllers() {
  if (!S.controllers) {
    return `<section class="card"><h2>Controllers</h2><p class="notice" data-test="hidden">Hidden: reconcile status — ${esc(S.controllersError || 'loading')}</p></section>`;
  }
  const rows = S.controllers.map(c => {
    const s = c.status;
    return `<tr><td>${esc(c.metadata.name)}</td><td>${s.leader ? '<span class="pill ok">leader</span>' : esc(s.leaseHolder || '')}</td>
      <td>${s.workers}</td><td>${s.queueDepth}</td><td>${s.inFlight}</td><td>${(c.rate || 0).toFixed(1)}</td>
      <td>${s.reconciles}</td><td>${s.errors}</td>
      <td>${s.retries}</td><td>${s.p99Millis}</td>
      <td class="wrap">${s.lastError ? `${objectLink(s.lastError.object)}: ${esc(s.lastError.message)} <span class="muted">${age(s.lastError.time)} ago</span>` : ''}</td></tr>`;
  }).join('');
  return `<section class="card"><h2>Controllers</h2><div class="scroll"><table data-test="controllers">
    <thead><tr><th>Controller</th><th>Leader</th><th>Workers</th><th>Queue</th><th>In flight</th><th>Reconciles/s</th><th>Reconciles</th>
    <th>Errors</th><th>Retries</th><th>p99 ms</th><th>Last error</th></tr></thead><tbody>${rows}</tbody></table></div></section>
    ${renderLevels()}
    <div class="grid">
      <section class="card"><h2>Reconciles per second, last 15 minutes</h2><div class="chart" id="chart-reconcileRate"></div></section>
      <section class="card"><h2>Queue depth (all controllers), last 15 minutes</h2><div class="chart" id="chart-queueDepth"></div></section>
      <section class="card"><h2>Pods scheduled per second, last 15 minutes</h2><div class="chart" id="chart-scheduledRate"></div></section>
    </div>`;
}

/** Each priority level's seats in use against its nominal share, what it borrowed, and what waits. */
function renderLevels() {
  if (!S.levels) {
    return `<section class="card"><h2>API Priority and Fairness</h2><p class="notice" data-test="hidden">Hidden:
      priority levels — ${esc(S.levelsError || 'loading')}</p></section>`;
  }
  const rows = S.levels.map(l => `<tr data-level="${esc(l.name)}"><td>${esc(l.name)}</td>
    <td data-test="seats">${l.nominal === 'exempt' ? 'exempt' : `${l.seats} / ${esc(l.nominal)}`}</td>
    <td>${l.borrowed}</td><td>${l.lendable}</td><td data-test="waiting">${l.waiting}</td><td>${l.activeQueues}</td></tr>`)
    .join('');
  return `<section class="card"><h2>API Priority and Fairness</h2><div class="scroll"><table data-test="priority-levels">
    <thead><tr><th>Priority level</th><th>Seats in use / nominal</th><th>Borrowed</th><th>Lendable</th><th>Waiting</th>
    <th>Queues in use</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

/** A controller's last error names an object key (namespace/name); it opens when the kind is known. */
function objectLink(key) {
  const parts = String(key || '').split('/');
  const name = parts.pop();
  const ns = parts.join('/');
  for (const plural of ['deployments', 'replicasets', 'pods', 'nodes']) {
    const o = S.store[plural].get(key);
    if (o) return link(KINDS[plural].kind, o);
  }
  return esc(ns ? ns + '/' + name : name);
}

function drawCharts(names) {
  if (typeof uPlot === 'undefined') return;
  for (const n of names) {
    const el = document.getElementById('chart-' + n);
    if (!el) continue;
    const width = Math.max(260, el.clientWidth - 4);
    const data = [S.series[n].t, S.series[n].v];
    new uPlot({ width, height: 150, legend: { show: false }, scales: { x: { time: true } },
      series: [{}, { stroke: '#1f5fbf', width: 2, fill: 'rgba(31,95,191,.12)' }],
      axes: [{}, { size: 50 }] }, data, el);
  }
}

function renderScheduler() {
  const pending = [...S.store.pods.values()].filter(p => !p.spec.nodeName && !terminal(p) && !p.metadata.deletionTimestamp);
  const reasons = {};
  for (const p of pending) {
    const c = condition(p, 'PodScheduled');
    const m = c && c.status === 'False' ? c.message : 'not tried yet';
    reasons[m] = (reasons[m] || 0) + 1;
  }
  const rows = pending.map(p => {
    const c = condition(p, 'PodScheduled');
    const why = S.why[keyOf(p)];
    return `<tr data-pending="${esc(keyOf(p))}"><td>${link('Pod', p)}</td><td>${age(p.metadata.creationTimestamp)}</td>
      <td class="wrap">${esc(c ? c.message : '')}</td>
      <td><button type="button" data-action="why" data-key="${esc(keyOf(p))}">Why</button>
        <button type="button" data-action="delete-pod" data-key="${esc(keyOf(p))}">Delete</button></td></tr>
      ${why ? `<tr><td colspan="4">${renderWhy(why)}</td></tr>` : ''}`;
  }).join('');
  const rates = S.series.scheduledRate.v;
  const last = rates.length ? rates[rates.length - 1] : 0;
  const st = S.scheduler ? S.scheduler.status : null;
  return `<div class="grid">
    <section class="card"><h2>Scheduled pods per second</h2><div class="stats"><div class="stat"><b>${last.toFixed(1)}</b>now</div>
      <div class="stat"><b>${pending.length}</b>pending</div>
      ${st ? `<div class="stat"><b>${st.bound}</b>bound</div><div class="stat"><b>${st.unschedulable}</b>unschedulable attempts</div>
        <div class="stat"><b>${st.preemptions}</b>preemptions</div><div class="stat"><b>${st.cycleMillisAvg}</b>ms per cycle</div>`
        : `<div class="notice" data-test="hidden">Hidden: scheduler status — ${esc(S.schedulerError || 'loading')}</div>`}</div>
      <div class="chart" id="chart-scheduledRate"></div></section>
    <section class="card"><h2>Why pods wait</h2><ul>${Object.entries(reasons).map(([m, n]) => `<li>${n} × ${esc(m)}</li>`).join('')
      || '<li class="muted">nothing waits</li>'}</ul></section></div>
    <section class="card"><h2>Pending pods (${pending.length})</h2><div class="scroll"><table data-test="pending">
    <thead><tr><th>Pod</th><th>Age</th><th>Condition</th><th></th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

function renderWhy(why) {
  if (why.error) return `<p class="error" role="alert">${esc(why.error)}</p>`;
  const st = why.status || {};
  const verdicts = (st.filtered || []).map(v =>
    `<tr><td>${esc(v.node)}</td><td>${esc(v.plugin)}</td><td>${esc(v.code)}</td><td class="wrap">${esc((v.reasons || []).join('; '))}</td></tr>`).join('');
  const scores = (st.scores || []).map(s =>
    `<tr><td>${esc(s.node)}</td><td>${s.total}</td><td class="wrap">${esc(Object.entries(s.plugins || {}).map(([k, v]) => k + ' ' + v).join(', '))}</td></tr>`).join('');
  return `<div data-test="why"><p>${esc(st.message || (st.scheduled ? 'placed on ' + st.node : ''))}</p>
    <table><thead><tr><th>Node</th><th>Plugin</th><th>Verdict</th><th>Reasons</th></tr></thead><tbody>${verdicts}</tbody></table>
    ${scores ? `<table><thead><tr><th>Node</th><th>Score</th><th>By plugin</th></tr></thead><tbody>${scores}</tbody></table>` : ''}</div>`;
}

function renderEvents() {
  const f = S.eventFilter;
  const events = [...S.store.events.values()].filter(e =>
    (!f.ns || e.metadata.namespace === f.ns)
    && (!f.type || e.type === f.type)
    && (!f.object || `${e.involvedObject.kind}/${e.involvedObject.name}`.toLowerCase().includes(f.object.toLowerCase())))
    .sort((a, b) => Date.parse(b.lastTimestamp || b.metadata.creationTimestamp)
      - Date.parse(a.lastTimestamp || a.metadata.creationTimestamp)).slice(0, 300);
  const rows = events.map(e => `<tr><td>${age(e.lastTimestamp || e.metadata.creationTimestamp)}</td>
    <td><span class="pill ${e.type === 'Warning' ? 'warn' : 'ok'}">${esc(e.type)}</span></td><td>${esc(e.reason)}</td>
    <td>${esc(e.involvedObject.kind)}/${esc(e.metadata.namespace ? e.metadata.namespace + '/' : '')}${esc(e.involvedObject.name)}</td>
    <td>${e.count || 1}</td><td class="wrap">${esc(e.message)}</td></tr>`).join('');
  return `<section class="card"><h2>Events</h2>
    <div class="filters">
      <label>Namespace <input id="ev-ns" value="${esc(f.ns)}" size="12"></label>
      <label>Object <input id="ev-object" value="${esc(f.object)}" size="16" placeholder="kind/name"></label>
      <label>Type <select id="ev-type"><option value="">All</option><option ${f.type === 'Normal' ? 'selected' : ''}>Normal</option>
        <option ${f.type === 'Warning' ? 'selected' : ''}>Warning</option></select></label>
    </div>
    <div class="scroll"><table data-test="events"><thead><tr><th>Last</th><th>Type</th><th>Reason</th><th>Object</th><th>Count</th>
    <th>Message</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

// ---- object detail: YAML, conditions, owners, events, history with a diff

function toYaml(v, indent = '', sorted = false) {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return v.map(x => {
      const inner = toYaml(x, indent + '  ', sorted);
      return `\n${indent}- ${typeof x === 'object' && x !== null ? inner.replace(/^\n\s*/, '') : inner}`;
    }).join('');
  }
  if (typeof v === 'object') {
    const keys = sorted ? Object.keys(v).sort() : Object.keys(v);
    if (!keys.length) return '{}';
    return keys.map(k => {
      const x = v[k];
      const inner = toYaml(x, indent + '  ', sorted);
      return `\n${indent}${k}:${typeof x === 'object' && x !== null && (Array.isArray(x) ? x.length : Object.keys(x).length) ? inner : ' ' + inner}`;
    }).join('');
  }
  if (typeof v === 'string') return /^[\w./:@-]+$/.test(v) && !/^(true|false|null|[0-9.]+)$/.test(v) ? v : JSON.stringify(v);
  return String(v);
}

function yaml(o, sorted = false) {
  return toYaml(o, '', sorted).replace(/^\n/, '');
}

/** A line diff (longest common subsequence) of two texts. */
function diff(a, b) {
  const x = a.split('\n'); const y = b.split('\n');
  const n = x.length; const m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) {
    L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  }
  const out = [];
  let i = 0; let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { out.push({ t: ' ', s: x[i] }); i++; j++; }
    else if (j < m && (i >= n || L[i][j + 1] >= L[i + 1][j])) { out.push({ t: '+', s: y[j] }); j++; }
    else { out.push({ t: '-', s: x[i] }); i++; }
  }
  return out;
}

async function openDetail(kind, ns, name) {
  stopPodLogs();
  const plural = BY_KIND[kind];
  const k = KINDS[plural];
  const path = k.namespaced ? k.nsPath(ns) + '/' + name : k.path + '/' + name;
  $('#detail').hidden = false;
  $('#detail-title').textContent = `${kind} ${ns ? ns + '/' : ''}${name}`;
  $('#detail-content').innerHTML = '<p class="muted">loading…</p>';
  $('#detail-close').focus();
  const [obj, hist] = await Promise.all([api(path),
    api(`${STATUS_ROOT}/objecthistories?apiVersion=${encodeURIComponent(k.apiVersion)}&resource=${plural}`
      + `${ns ? '&namespace=' + encodeURIComponent(ns) : ''}&name=${encodeURIComponent(name)}`)]);
  if (obj.status !== 200) {
    $('#detail-content').innerHTML = `<p class="error" role="alert">${esc(failure(obj))}</p>`;
    return;
  }
  const o = obj.body;
  const conds = ((o.status && o.status.conditions) || []).map(c =>
    `<tr><td>${esc(c.type)}</td><td>${esc(c.status)}</td><td>${esc(c.reason || '')}</td><td class="wrap">${esc(c.message || '')}</td>
     <td>${age(c.lastTransitionTime)}</td></tr>`).join('');
  const chain = [];
  let cur = o;
  for (let depth = 0; cur && depth < 5; depth++) {
    const ref = (cur.metadata.ownerReferences || []).find(r => r.controller) || (cur.metadata.ownerReferences || [])[0];
    if (!ref) break;
    const p = BY_KIND[ref.kind];
    const owner = p ? S.store[p].get((cur.metadata.namespace ? cur.metadata.namespace + '/' : '') + ref.name) : null;
    chain.push(owner ? link(ref.kind, owner) : `${esc(ref.kind)} ${esc(ref.name)}`);
    cur = owner;
  }
  const events = [...S.store.events.values()].filter(e => e.involvedObject.uid === o.metadata.uid)
    .map(e => `<li><span class="pill ${e.type === 'Warning' ? 'warn' : 'ok'}">${esc(e.reason)}</span> ${esc(e.message)}
      <span class="muted">${age(e.lastTimestamp)} ago${e.count > 1 ? ', ×' + e.count : ''}</span></li>`).join('');
  let history;
  if (hist.status === 200) {
    const items = hist.body.items;
    const options = items.map((it, i) => `<option value="${i}">${it.revision} · ${it.type}</option>`).join('');
    history = `<p>${items.length} retained revision${items.length === 1 ? '' : 's'}${hist.body.complete ? ''
      : ` <span class="pill warn">earlier revisions compacted (log compacted up to ${hist.body.compactedRevision})</span>`}</p>
      <div class="filters"><label>From <select id="diff-from">${options}</select></label>
        <label>To <select id="diff-to">${options}</select></label></div><pre class="diff" id="diff" data-test="diff"></pre>`;
    S.detailHistory = items;
  } else {
    history = `<p class="notice">History hidden — ${esc(failure(hist))}</p>`;
    S.detailHistory = null;
  }
  $('#detail-content').innerHTML = `
    ${conds ? `<h3>Conditions</h3><div class="scroll"><table><thead><tr><th>Type</th><th>Status</th><th>Reason</th><th>Message</th>
      <th>Since</th></tr></thead><tbody>${conds}</tbody></table></div>` : ''}
    <h3>Owners</h3><p>${chain.length ? chain.join(' → ') : '<span class="muted">none</span>'}</p>
    <h3>Events</h3><ul>${events || '<li class="muted">none seen</li>'}</ul>
    ${kind === 'Pod' ? `<h3>Logs</h3>${podLogsSection(o)}` : ''}
    <h3>History</h3>${history}
    <h3>YAML</h3><pre data-test="yaml">${esc(yaml(o))}</pre>`;
  if (kind === 'Pod') wirePodLogs(o);
  if (S.detailHistory) {
    const items = S.detailHistory;
    $('#diff-from').value = String(Math.max(0, items.length - 2));
    $('#diff-to').value = String(items.length - 1);
    showDiff();
  }
}

function showDiff() {
  const items = S.detailHistory;
  if (!items) return;
  const a = items[Number($('#diff-from').value)].object;
  const b = items[Number($('#diff-to').value)].object;
  // keys in one order on both sides, so that only what changed differs
  const strip = o => { const c = JSON.parse(JSON.stringify(o)); delete c.metadata.managedFields; return yaml(c, true); };
  $('#diff').innerHTML = diff(strip(a), strip(b)).filter(l => l.t !== ' ').map(l =>
    `<span class="${l.t === '+' ? 'add' : 'del'}">${esc(l.t + ' ' + l.s)}</span>`).join('') || 'no difference';
}

// ---- actions: each an ordinary API call, its failure shown as the server said it

async function act(button) {
  const action = button.dataset.action;
  let r;
  if (action === 'cordon' || action === 'uncordon') {
    r = await api('/api/v1/nodes/' + button.dataset.name, { method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { unschedulable: action === 'cordon' ? true : null } }) });
  } else if (action === 'scale' || action === 'restart') {
    const [ns, name] = button.dataset.key.split('/');
    if (action === 'scale') {
      const replicas = Number(document.getElementById(button.dataset.input).value);
      delete S.typed[button.dataset.input];
      r = await api(`/apis/apps/v1/namespaces/${ns}/deployments/${name}/scale`, { method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { replicas } }) });
    } else {
      r = await api(`/apis/apps/v1/namespaces/${ns}/deployments/${name}`, { method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ spec: { template: { metadata: { annotations: {
          'kubectl.kubernetes.io/restartedAt': new Date().toISOString() } } } } }) });
    }
  } else if (action === 'delete-pod') {
    const [ns, name] = button.dataset.key.split('/');
    r = await api(`/api/v1/namespaces/${ns}/pods/${name}`, { method: 'DELETE' });
  } else if (action === 'why') {
    const [ns, name] = button.dataset.key.split('/');
    const w = await api(`${STATUS_ROOT}/namespaces/${ns}/pods/${name}/scheduling`);
    S.why[button.dataset.key] = w.status === 200 ? w.body : { error: failure(w) };
    render();
    return;
  }
  if (r.status >= 300) {
    notice(`${button.textContent.trim()} failed — ${failure(r)}`, true);
  } else {
    notice(`${button.textContent.trim()}: done`, false);
  }
}

// ---- signing in and out

async function signIn(token, ns) {
  S.token = token;
  S.ns = ns;
  const who = await api('/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }) });
  if (who.status !== 201 && who.status !== 200) {
    S.token = null;
    $('#signin-error').textContent = who.status === 401 ? 'This token was not accepted (401 Unauthorized).'
      : 'Signing in failed: ' + failure(who);
    return;
  }
  sessionStorage.setItem('cybernetes.token', token);
  sessionStorage.setItem('cybernetes.ns', ns);
  S.user = who.body.status.userInfo.username;
  $('#signin').hidden = true;
  $('#tabs').hidden = false;
  $('#who').hidden = false;
  $('#user').textContent = 'Signed in as ' + S.user;
  $('#scope').value = ns;
  start();
}

function start() {
  stop();
  // a browser keeps at most six connections to a server: the kinds the workloads tab alone shows are listed, not watched
  for (const plural of Object.keys(KINDS)) if (!KINDS[plural].listed) follow(plural);
  loadSamples().then(pollStatus);
  S.poller = setInterval(pollStatus, 2000);
  S.listPoller = setInterval(pollListed, 3000);
  api('/api/v1/namespaces').then(r => {
    if (r.status === 200) {
      $('#namespaces').innerHTML = r.body.items.map(n => `<option value="${esc(n.metadata.name)}">`).join('');
    }
  });
  render();
}

function stop() {
  lastHtml = '';
  for (const w of S.watches) w.abort();
  S.watches = [];
  if (S.poller) clearInterval(S.poller);
  if (S.listPoller) clearInterval(S.listPoller);
  for (const m of Object.values(S.store)) m.clear();
  S.hidden = {};
  S.series = emptySeries();
  S.last = null;
}

function signOut(message) {
  stop();
  S.token = null;
  sessionStorage.removeItem('cybernetes.token');
  $('#signin').hidden = false;
  $('#tabs').hidden = true;
  $('#who').hidden = true;
  $('#view').innerHTML = '';
  $('#notices').innerHTML = '';
  $('#signin-error').textContent = message || '';
}

// ---- wiring

document.addEventListener('DOMContentLoaded', () => {
  $('#signin').addEventListener('submit', e => {
    e.preventDefault();
    signIn($('#token').value.trim(), $('#signin-ns').value.trim());
  });
  $('#signout').addEventListener('click', () => signOut(''));
  $('#scope').addEventListener('change', () => {
    S.ns = $('#scope').value.trim();
    sessionStorage.setItem('cybernetes.ns', S.ns);
    start();
  });
  $('#tabs').addEventListener('click', e => {
    const b = e.target.closest('button[data-tab]');
    if (!b) return;
    S.tab = b.dataset.tab;
    pollListed();
    for (const t of document.querySelectorAll('#tabs button')) {
      if (t === b) t.setAttribute('aria-current', 'page'); else t.removeAttribute('aria-current');
    }
    render();
  });
  document.addEventListener('click', e => {
    const a = e.target.closest('[data-detail]');
    if (a) {
      e.preventDefault();
      const [kind, ns, name] = a.dataset.detail.split('|');
      openDetail(kind, ns, name);
      return;
    }
    const b = e.target.closest('button[data-action]');
    if (b) act(b);
  });
  document.addEventListener('input', e => {
    if (e.target.id.startsWith('scale-')) { S.typed[e.target.id] = e.target.value; return; }
    if (e.target.id === 'ev-ns') S.eventFilter.ns = e.target.value.trim();
    else if (e.target.id === 'ev-object') S.eventFilter.object = e.target.value.trim();
    else return;
    scheduleRender();
  });
  document.addEventListener('change', e => {
    if (e.target.id === 'ev-type') { S.eventFilter.type = e.target.value; render(); }
    if (e.target.id === 'diff-from' || e.target.id === 'diff-to') showDiff();
  });
  // a Deployment's sets and pods are drawn only while its details are open (thousands of pods otherwise)
  document.addEventListener('toggle', e => {
    const d = e.target;
    if (!(d instanceof HTMLDetailsElement) || !d.dataset.key) return;
    const was = S.openDetails.has(d.dataset.key);
    if (d.open === was) return;
    if (d.open) S.openDetails.add(d.dataset.key); else S.openDetails.delete(d.dataset.key);
    render();
  }, true);
  $('#detail-close').addEventListener('click', () => { $('#detail').hidden = true; stopPodLogs(); });
  document.addEventListener('pointerdown', () => { pointerDown = true; }, true);
  document.addEventListener('pointerup', () => { pointerDown = false; }, true);
  document.addEventListener('pointercancel', () => { pointerDown = false; }, true);
  document.addEventListener('keydown', e => {
    if (e.key === 'Escape' && !$('#detail').hidden) { $('#detail').hidden = true; stopPodLogs(); }
  });
  if (S.token) signIn(S.token, S.ns);
});
