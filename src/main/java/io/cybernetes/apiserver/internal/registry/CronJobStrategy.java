package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.CronSchedule;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * CronJobs (batch/v1) as Kubernetes' strategy has them: defaults (concurrency policy Allow,
 * not suspended, three successful and one failed Job kept), names short enough for the Jobs
 * made from them (52 characters), the schedule and time zone read as the controller reads
 * them, and the Job template validated as a Job's would be.
 */
public final class CronJobStrategy extends DefaultingStrategy {

    static final int MAX_NAME = 52;

    @Override
    void setDefaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        PodSpecs.putIfAbsent(spec, "concurrencyPolicy", "Allow");
        if (!spec.hasNonNull("suspend")) {
            spec.put("suspend", false);
        }
        if (!spec.hasNonNull("successfulJobsHistoryLimit")) {
            spec.put("successfulJobsHistoryLimit", 3);
        }
        if (!spec.hasNonNull("failedJobsHistoryLimit")) {
            spec.put("failedJobsHistoryLimit", 1);
        }
        if (spec.get("jobTemplate") instanceof ObjectNode jt && jt.get("spec") instanceof ObjectNode js
                && js.get("template") instanceof ObjectNode t) {
            PodSpecs.setDefaults(Json.child(t, "spec"));
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        String name = Json.text(obj, "metadata.name");
        if (name != null && name.length() > MAX_NAME) {
            causes.add(MetaValidation.invalid("metadata.name", name, "must be no more than " + MAX_NAME
                    + " characters"));
        }
        JsonNode spec = obj.path("spec");
        String schedule = spec.path("schedule").asString("");
        if (schedule.isEmpty()) {
            causes.add(MetaValidation.required("spec.schedule"));
        } else if (schedule.contains("TZ=")) {
            causes.add(MetaValidation.invalid("spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use"
                    + " timeZone field instead"));
        } else {
            try {
                CronSchedule.parse(schedule);
            } catch (CronSchedule.Invalid e) {
                causes.add(MetaValidation.invalid("spec.schedule", schedule, e.getMessage()));
            }
        }
        if (spec.hasNonNull("timeZone")) {
            String zone = spec.path("timeZone").asString("");
            try {
                CronSchedule.zone(zone);
            } catch (CronSchedule.Invalid e) {
                causes.add(MetaValidation.invalid("spec.timeZone", zone, e.getMessage()));
            }
        }
        String policy = spec.path("concurrencyPolicy").asString("Allow");
        if (!List.of("Allow", "Forbid", "Replace").contains(policy)) {
            causes.add(MetaValidation.notSupported("spec.concurrencyPolicy", policy,
                    "\"Allow\", \"Forbid\", \"Replace\""));
        }
        for (String f : List.of("startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit")) {
            if (spec.hasNonNull(f) && spec.path(f).asLong() < 0) {
                causes.add(ApiException.cause("spec." + f, "FieldValueInvalid", "Invalid value: "
                        + spec.path(f).asLong() + ": must be greater than or equal to 0"));
            }
        }
        JsonNode template = spec.path("jobTemplate").path("spec").path("template");
        if (template.isMissingNode()) {
            causes.add(MetaValidation.required("spec.jobTemplate.spec.template"));
            return;
        }
        String restart = template.path("spec").path("restartPolicy").asString("Always");
        if (!restart.equals("OnFailure") && !restart.equals("Never")) {
            causes.add(MetaValidation.notSupported("spec.jobTemplate.spec.template.spec.restartPolicy", restart,
                    "\"OnFailure\", \"Never\""));
        }
        PodSpecs.validate(template.get("spec"), "spec.jobTemplate.spec.template.spec", causes);
    }
}
