package io.cybernetes.controller.job;

import io.cybernetes.api.Json;
import io.cybernetes.client.EventRecorder;
import io.cybernetes.client.Indexer;
import io.cybernetes.controller.Controller;
import io.cybernetes.controller.OwnerReferences;
import io.cybernetes.controller.RecordingApiClient;
import io.cybernetes.controller.Request;
import io.cybernetes.controller.TestClock;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The Job controller's counting when its caches lag behind what it wrote. */
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
}
