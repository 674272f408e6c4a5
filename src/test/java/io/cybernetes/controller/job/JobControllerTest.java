package io.cybernetes.controller.job;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.Result;
import io.cybernetes.controller.TestClock;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Job controller's counting when its caches lag behind what it wrote, or a pass fails halfway. */
class JobControllerTest {

    private final RecordingApiClient client = new RecordingApiClient();
    private final Indexer<Job> jobs = new Indexer<>();
    private final Indexer<Pod> pods = new Indexer<>();
    private final JobController controller = new JobController(client, jobs, pods,
            new EventRecorder(client, "job-controller"), new TestClock(), Duration.ofSeconds(10));

    private Job job() {
        Job job = Json.convert(Json.MAPPER.readTree("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":"
                + "{\"name\":\"three\",\"namespace\":\"ns\",\"uid\":\"job-uid\",\"resourceVersion\":\"5\"},"
                + "\"spec\":{\"completions\":3,\"parallelism\":2,\"backoffLimit\":6,\"completionMode\":\"NonIndexed\","
                + "\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\","
                + "\"image\":\"busybox\"}]}}},\"status\":{\"startTime\":\"2026-11-29T12:00:00Z\"}}"), Job.class);
        jobs.put(job);
        return job;
    }

    private Pod pod(Job job, String name, String phase) {
        Pod p = JobPods.newPod(job, null, 0);
        p.getMetadata().setName(name);
        p.getMetadata().setUid(name + "-uid");
        p.setStatus(new PodStatus());
        p.getStatus().setPhase(phase);
        pods.put(p);
        return p;
    }

    /** The pod, named, Failed with its container's exit code, in the pods' cache. */
    private void exited(Pod p, String name, int exitCode) {
        p.getMetadata().setName(name);
        p.getMetadata().setUid(name + "-uid");
        p.setStatus(new PodStatusBuilder().withPhase("Failed").addNewContainerStatus().withName("c").withNewState()
                .withNewTerminated().withExitCode(exitCode).endTerminated().endState().endContainerStatus().build());
        pods.put(p);
    }

    private Job lastWritten() {
        return (Job) client.statusWrites.get(client.statusWrites.size() - 1);
    }

    @Test
    void aSucceededPodStillShowingItsFinalizerInTheCacheIsNotCountedAgain() throws Exception {
        Job job = job();
        pod(job, "three-a", "Succeeded");
        pod(job, "three-b", "Running");
        controller.reconcile(Request.ofKey("ns/three"));
        assertThat(client.actions).contains("patch Pod three-a");
        assertThat(lastWritten().getStatus().getSucceeded()).isEqualTo(1);

        // the Job's cache has the status written; the pods' cache has not yet seen the finalizer go
        Job caughtUp = Json.convert(Json.toTree(lastWritten()), Job.class);
        caughtUp.getMetadata().setResourceVersion("9");
        jobs.put(caughtUp);
        int writes = client.statusWrites.size();
        controller.reconcile(Request.ofKey("ns/three"));
        List<Integer> counted = new ArrayList<>();
        client.statusWrites.subList(writes, client.statusWrites.size())
                .forEach(w -> counted.add(((Job) w).getStatus().getSucceeded()));
        assertThat(counted).as("succeeded written after the second pass").doesNotContain(2);
        assertThat(OwnerReferences.controllerOf(pods.get("ns/three-a").orElseThrow()).getUid()).isEqualTo("job-uid");

        // once the cache shows the finalizer gone, the next success counts normally
        Pod before = pods.get("ns/three-a").orElseThrow();
        Pod a = Json.convert(Json.toTree(before), Pod.class);
        a.getMetadata().setFinalizers(List.of());
        controller.podHandler(new Controller("job-test", controller, 1)).onUpdate(before, a);
        pods.put(a);
        pod(job, "three-b", "Succeeded");
        controller.reconcile(Request.ofKey("ns/three"));
        assertThat(lastWritten().getStatus().getSucceeded()).isEqualTo(2);
    }

    @Test
    void whatAFailedPodDecidedIsWrittenWithItsUidSoThatARetryKeepsIt() throws Exception {
        // no back-off, so that the first pass goes on to create index 1's pod, which the quota refuses
        JobController noBackoff = new JobController(client, jobs, pods, new EventRecorder(client, "job-controller"),
                new TestClock(), Duration.ZERO);
        Job job = Json.convert(Json.MAPPER.readTree("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":"
                + "{\"name\":\"fi\",\"namespace\":\"ns\",\"uid\":\"job-uid\",\"resourceVersion\":\"5\"},\"spec\":{"
                + "\"completions\":2,\"parallelism\":2,\"backoffLimit\":2147483647,\"backoffLimitPerIndex\":3,"
                + "\"completionMode\":\"Indexed\",\"podFailurePolicy\":{\"rules\":[{\"action\":\"FailIndex\","
                + "\"onExitCodes\":{\"operator\":\"In\",\"values\":[5]}}]},\"template\":{\"spec\":{\"restartPolicy\":"
                + "\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}"), Job.class);
        jobs.put(job);
        Pod failed = JobPods.newPod(job, 0, 0);
        exited(failed, "fi-0-a", 5);
        client.failCreatesAfter(0);
        assertThatThrownBy(() -> noBackoff.reconcile(Request.ofKey("ns/fi"))).isInstanceOf(ApiException.class);
        Job uidsWritten = Json.convert(Json.toTree(client.statusWrites.get(0)), Job.class);
        assertThat(uidsWritten.getStatus().getUncountedTerminatedPods().getFailed()).containsExactly("fi-0-a-uid");
        assertThat(uidsWritten.getStatus().getFailedIndexes()).isEqualTo("0");

        // the retry sees the uid already written and skips the pod: index 0 must stay failed, not be started again
        uidsWritten.getMetadata().setResourceVersion("9");
        jobs.put(uidsWritten);
        client.failCreatesAfter(Integer.MAX_VALUE);
        noBackoff.reconcile(Request.ofKey("ns/fi"));
        assertThat(client.created.stream().filter(Pod.class::isInstance).map(p -> JobPods.index((Pod) p)))
                .containsExactly(1);
        assertThat(lastWritten().getStatus().getFailedIndexes()).isEqualTo("0");
        assertThat(lastWritten().getStatus().getFailed()).isEqualTo(1);
    }

    @Test
    void aFailJobVerdictIsWrittenWithThePodsUid() throws Exception {
        Job job = Json.convert(Json.MAPPER.readTree("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":"
                + "{\"name\":\"fj\",\"namespace\":\"ns\",\"uid\":\"job-uid\",\"resourceVersion\":\"5\"},\"spec\":{"
                + "\"completions\":1,\"parallelism\":1,\"backoffLimit\":6,\"completionMode\":\"NonIndexed\","
                + "\"podFailurePolicy\":{\"rules\":[{\"action\":\"FailJob\",\"onExitCodes\":{\"operator\":\"In\","
                + "\"values\":[42]}}]},\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":"
                + "[{\"name\":\"c\",\"image\":\"busybox\"}]}}},\"status\":{\"startTime\":\"2026-11-29T12:00:00Z\"}}"),
                Job.class);
        jobs.put(job);
        Pod failed = JobPods.newPod(job, null, 0);
        exited(failed, "fj-a", 42);
        controller.reconcile(Request.ofKey("ns/fj"));
        Job uidsWritten = (Job) client.statusWrites.get(0);
        assertThat(uidsWritten.getStatus().getUncountedTerminatedPods().getFailed()).containsExactly("fj-a-uid");
        assertThat(uidsWritten.getStatus().getConditions()).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo("FailureTarget");
            assertThat(c.getReason()).isEqualTo("PodFailurePolicy");
        });
    }

    @Test
    void aPodWhoseFinalizerRemovalIsRefusedStaysUncountedUntilItIsRemoved() throws Exception {
        Job job = job();
        pod(job, "three-a", "Succeeded");
        client.conflictingPatches.add("three-a");
        assertThat(controller.reconcile(Request.ofKey("ns/three"))).isEqualTo(Result.REQUEUE);
        assertThat(lastWritten().getStatus().getSucceeded()).as("not counted while the pod holds the finalizer")
                .isZero();
        assertThat(lastWritten().getStatus().getUncountedTerminatedPods().getSucceeded()).containsExactly("three-a-uid");

        // the next pass (the Job's cache caught up): the removal goes through and the pod is counted, once
        Job caughtUp = Json.convert(Json.toTree(lastWritten()), Job.class);
        caughtUp.getMetadata().setResourceVersion("9");
        jobs.put(caughtUp);
        client.conflictingPatches.clear();
        controller.reconcile(Request.ofKey("ns/three"));
        assertThat(lastWritten().getStatus().getSucceeded()).isEqualTo(1);
        assertThat(lastWritten().getStatus().getUncountedTerminatedPods().getSucceeded()).isNullOrEmpty();
    }

    @Test
    void anUncountedUidWhosePodIsGoneIsCounted() throws Exception {
        Job job = job();
        pod(job, "three-a", "Succeeded");
        client.conflictingPatches.add("three-a");
        controller.reconcile(Request.ofKey("ns/three"));
        Job caughtUp = Json.convert(Json.toTree(lastWritten()), Job.class);
        caughtUp.getMetadata().setResourceVersion("9");
        jobs.put(caughtUp);
        pods.remove("ns/three-a");
        controller.reconcile(Request.ofKey("ns/three"));
        assertThat(lastWritten().getStatus().getSucceeded()).isEqualTo(1);
        assertThat(lastWritten().getStatus().getUncountedTerminatedPods().getSucceeded()).isNullOrEmpty();
    }
}
