"""The Kubernetes Python client (Debian's python3-kubernetes) against a running Cybernetes,
used as its users use it: watches, typed lists, create_from_yaml, the dynamic client and
error handling. Run by PythonClientTest with KUBECONFIG pointing at the admin kubeconfig and
CYBERNETES_TEST_NAMESPACE naming a namespace of the test's own."""

import os
import time

import pytest
from kubernetes import client, config, dynamic, utils, watch
from kubernetes.client.rest import ApiException

NS = os.environ.get("CYBERNETES_TEST_NAMESPACE", "python-client")


@pytest.fixture(scope="module")
def api():
    config.load_kube_config(config_file=os.environ["KUBECONFIG"])
    return client.ApiClient()


def test_version_and_discovery(api):
    version = client.VersionApi(api).get_code()
    assert version.major == "1" and version.minor == "32"
    groups = [g.name for g in client.ApisApi(api).get_api_versions().groups]
    assert "apps" in groups


def test_list_node_decodes_every_node(api):
    nodes = client.CoreV1Api(api).list_node().items
    assert len(nodes) >= 3
    for n in nodes:
        info = n.status.node_info
        assert info.boot_id and info.machine_id and info.system_uuid and info.os_image
        assert info.kubelet_version.startswith("v1.32")


def test_watch_stream_sees_a_configmap_come_and_go(api):
    v1 = client.CoreV1Api(api)
    w = watch.Watch()
    seen = []
    v1.create_namespaced_config_map(NS, {"metadata": {"name": "watched"}, "data": {"k": "v"}})
    for event in w.stream(v1.list_namespaced_config_map, NS, timeout_seconds=10, resource_version="0"):
        seen.append((event["type"], event["object"].metadata.name))
        if event["object"].metadata.name == "watched":
            if event["type"] == "ADDED":
                v1.delete_namespaced_config_map("watched", NS)
            elif event["type"] == "DELETED":
                w.stop()
    assert ("ADDED", "watched") in seen and ("DELETED", "watched") in seen


def test_watch_follows_changes_from_a_resource_version(api):
    v1 = client.CoreV1Api(api)
    rv = v1.list_namespaced_config_map(NS).metadata.resource_version
    v1.create_namespaced_config_map(NS, {"metadata": {"name": "later"}})
    v1.patch_namespaced_config_map("later", NS, {"data": {"x": "1"}})
    types = []
    # as the client's users watch: without timeout_seconds the client watches again from the
    # last revision it saw when a stream ends (a server may end one at any time); a read
    # timeout bounds the wait
    for event in watch.Watch().stream(v1.list_namespaced_config_map, NS, resource_version=rv,
                                      _request_timeout=20):
        if event["object"].metadata.name == "later":
            types.append(event["type"])
        if types == ["ADDED", "MODIFIED"]:
            break
    assert types == ["ADDED", "MODIFIED"]


def test_create_from_yaml_makes_a_deployment_that_runs(api, tmp_path):
    manifest = tmp_path / "web.yaml"
    manifest.write_text("""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: py-web
spec:
  replicas: 2
  selector:
    matchLabels: {app: py-web}
  template:
    metadata:
      labels: {app: py-web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
""")
    utils.create_from_yaml(api, str(manifest), namespace=NS)
    apps = client.AppsV1Api(api)
    deadline = time.time() + 60
    while time.time() < deadline:
        d = apps.read_namespaced_deployment("py-web", NS)
        if d.status.available_replicas == 2:
            break
        time.sleep(0.5)
    assert d.status.available_replicas == 2
    pods = client.CoreV1Api(api).list_namespaced_pod(NS, label_selector="app=py-web").items
    assert len(pods) == 2 and all(p.status.phase == "Running" for p in pods)
    with pytest.raises(utils.FailToCreateError) as failed:
        utils.create_from_yaml(api, str(manifest), namespace=NS)
    assert failed.value.api_exceptions[0].status == 409
    # printed as kube-apiserver's errors print: the HTTP reason phrase, then the Status body
    assert str(failed.value).startswith('Error from server (Conflict): {"kind":"Status","apiVersion":"v1",'
                                        '"metadata":{},"status":"Failure","message":"deployments.apps')


def test_errors_carry_status_reason_and_body(api):
    v1 = client.CoreV1Api(api)
    with pytest.raises(ApiException) as missing:
        v1.read_namespaced_config_map("no-such-thing", NS)
    assert missing.value.status == 404
    assert missing.value.reason == "Not Found"
    assert '"reason":"NotFound"' in missing.value.body
    v1.create_namespaced_config_map(NS, {"metadata": {"name": "twice"}})
    with pytest.raises(ApiException) as conflict:
        v1.create_namespaced_config_map(NS, {"metadata": {"name": "twice"}})
    assert conflict.value.status == 409
    assert conflict.value.reason == "Conflict"
    assert '"reason":"AlreadyExists"' in conflict.value.body


def test_dynamic_client_gets_lists_and_patches(api):
    dyn = dynamic.DynamicClient(api)
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    cms.create(body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dyn"}, "data": {"a": "1"}},
               namespace=NS)
    got = cms.get(name="dyn", namespace=NS)
    assert got.data.a == "1"
    cms.patch(name="dyn", namespace=NS, body={"data": {"a": "2"}}, content_type="application/merge-patch+json")
    assert cms.get(name="dyn", namespace=NS).data.a == "2"
    assert "dyn" in [i.metadata.name for i in cms.get(namespace=NS).items]


def _running_pod(v1, name, annotations=None):
    v1.create_namespaced_pod(NS, {"metadata": {"name": name, "annotations": annotations or {}},
                                  "spec": {"containers": [{"name": "app", "image": "busybox",
                                                           "env": [{"name": "COLOUR", "value": "teal"}]}]}})
    for _ in range(300):
        if v1.read_namespaced_pod(name, NS).status.phase == "Running":
            return
        time.sleep(0.1)
    raise AssertionError("pod %s never ran" % name)


def test_read_namespaced_pod_log(api):
    v1 = client.CoreV1Api(api)
    _running_pod(v1, "talker", {"cybernetes.io/log-script": "first line\nsecond line"})
    log = v1.read_namespaced_pod_log("talker", NS)
    assert log.splitlines() == ["[cybernetes] started container app (image busybox)", "first line", "second line"]
    assert v1.read_namespaced_pod_log("talker", NS, tail_lines=1) == "second line\n"
    stamped = v1.read_namespaced_pod_log("talker", NS, timestamps=True, tail_lines=1)
    assert stamped.endswith("Z second line\n")


def test_stream_exec_over_websocket(api):
    from kubernetes.stream import stream
    v1 = client.CoreV1Api(api)
    _running_pod(v1, "execed")
    out = stream(v1.connect_get_namespaced_pod_exec, "execed", NS, command=["sh", "-c", "echo $COLOUR"],
                 stderr=True, stdin=False, stdout=True, tty=False)
    assert out == "teal\n"
    resp = stream(v1.connect_get_namespaced_pod_exec, "execed", NS, command=["sh", "-c", "exit 5"],
                  stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
    resp.run_forever(timeout=10)
    assert resp.returncode == 5


def test_stream_exec_with_a_terminal_prompts_echoes_and_takes_a_resize(api):
    import json
    from kubernetes.stream import stream
    v1 = client.CoreV1Api(api)
    _running_pod(v1, "terminal")
    resp = stream(v1.connect_get_namespaced_pod_exec, "terminal", NS, command=["sh"],
                  stderr=True, stdin=True, stdout=True, tty=True, _preload_content=False)
    resp.write_channel(4, json.dumps({"Width": 120, "Height": 40}))
    resp.write_stdin("echo hi\n")
    out = ""
    deadline = time.time() + 15
    while time.time() < deadline and not out.endswith("hi\r\n/ # "):
        resp.update(timeout=1)
        if resp.peek_stdout():
            out += resp.read_stdout()
    # over a terminal: a prompt, what was typed echoed, and CR LF line ends
    assert out == "/ # echo hi\r\nhi\r\n/ # "
    resp.write_stdin("exit 3\n")
    resp.run_forever(timeout=10)
    assert resp.returncode == 3


def test_portforward_over_websocket(api):
    from kubernetes.stream import portforward
    v1 = client.CoreV1Api(api)
    _running_pod(v1, "forwarded")
    pf = portforward(v1.connect_get_namespaced_pod_portforward, "forwarded", NS, ports="8080")
    sock = pf.socket(8080)
    sock.setblocking(True)
    sock.sendall(b"GET /via-python HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n")
    reply = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        reply += chunk
    sock.close()
    assert reply.startswith(b"HTTP/1.1 200 OK")
    assert reply.endswith(("pod %s/forwarded port 8080: GET /via-python\n" % NS).encode())
    assert pf.error(8080) is None
