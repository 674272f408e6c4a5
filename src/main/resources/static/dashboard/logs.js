'use strict';
/*
 * A pod's logs on its detail view: the container chosen, the last 200 lines, then followed
 * live (pods/log with follow=true, read as it streams) until the view closes, another
 * container is chosen, or following is turned off.
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
  if (podLog) podLog.abort();
  podLog = null;
}

/** Reads the chosen container's log into the view, following it while asked. */
async function startPodLogs(pod) {
  stopPodLogs();
  const pre = $('#pod-log');
  if (!pre) return;
  const container = $('#log-container').value;
  const follow = $('#log-follow').checked;
  const ctl = new AbortController();
  podLog = ctl;
  pre.textContent = '';
  $('#pod-log-error').textContent = '';
  const path = `/api/v1/namespaces/${encodeURIComponent(pod.metadata.namespace)}/pods/`
    + `${encodeURIComponent(pod.metadata.name)}/log?container=${encodeURIComponent(container)}&tailLines=200`
    + (follow ? '&follow=true' : '');
  try {
    const r = await fetch(path, { headers: { Authorization: 'Bearer ' + S.token }, signal: ctl.signal });
    if (r.status !== 200) {
      const text = await r.text();
      let body = text;
      try { body = JSON.parse(text); } catch (e) { /* not JSON */ }
      $('#pod-log-error').textContent = failure({ status: r.status, body });
      return;
    }
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      pre.textContent += decoder.decode(value, { stream: true });
      if (pre.textContent.length > 200000) pre.textContent = pre.textContent.slice(-150000);
      if (atBottom) pre.scrollTop = pre.scrollHeight;
    }
  } catch (e) {
    if (e.name !== 'AbortError') $('#pod-log-error').textContent = 'the log stream ended: ' + e.message;
  }
}

/** Wires the section's controls once it is drawn. */
function wirePodLogs(pod) {
  $('#log-container').addEventListener('change', () => startPodLogs(pod));
  $('#log-follow').addEventListener('change', () => startPodLogs(pod));
  startPodLogs(pod);
}
