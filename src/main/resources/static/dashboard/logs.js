'use strict';
/*
 * A pod's logs on its detail view: the chosen container's last 1,000 lines, read again every
 * two seconds while "Follow" is on and the view is open. Polled rather than streamed: the
 * watches the page keeps open already take most of the six connections a browser allows a
 * server, and a held log stream would starve them.
 */

let podLog = null;

/** The logs section of a pod's detail view. */
function podLogsSection(pod) {
  const names = [...(pod.spec.containers || []), ...(pod.spec.initContainers || []),
    ...(pod.spec.ephemeralContainers || [])].map(c => c.name);
  const options = names.map(n => `<option>${esc(n)}</option>`).join('');
  return `<div class="filters"><label>Container <select id="log-container">${options}</select></label>
    <label><input type="checkbox" id="log-follow" checked> Follow</label></div>
    <pre class="log" id="pod-log" data-test="pod-log" aria-live="off"></pre>
    <p class="error" role="alert" id="pod-log-error"></p>`;
}

function stopPodLogs() {
  if (podLog) clearTimeout(podLog.timer);
  podLog = null;
}

/** Reads the chosen container's log into the view, and again in two seconds while following. */
async function startPodLogs(pod) {
  stopPodLogs();
  const mine = { timer: null };
  podLog = mine;
  const read = async () => {
    const pre = $('#pod-log');
    if (podLog !== mine || !pre) return;
    const container = $('#log-container').value;
    const r = await api(`/api/v1/namespaces/${encodeURIComponent(pod.metadata.namespace)}/pods/`
      + `${encodeURIComponent(pod.metadata.name)}/log?container=${encodeURIComponent(container)}&tailLines=1000`);
    if (podLog !== mine) return;
    if (r.status !== 200) {
      $('#pod-log-error').textContent = failure(r);
    } else {
      $('#pod-log-error').textContent = '';
      const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      pre.textContent = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
      if (atBottom) pre.scrollTop = pre.scrollHeight;
    }
    if ($('#log-follow') && $('#log-follow').checked) mine.timer = setTimeout(read, 2000);
  };
  read();
}

/** Wires the section's controls once it is drawn. */
function wirePodLogs(pod) {
  $('#log-container').addEventListener('change', () => startPodLogs(pod));
  $('#log-follow').addEventListener('change', () => startPodLogs(pod));
  startPodLogs(pod);
}
