package io.cybernetes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The module rules of DESIGN.md, checked on the compiled classes. */
class ModuleBoundariesTest {

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.cybernetes");

    @Test
    void onlyTheApiServerTouchesTheStore() {
        noClasses().that().resideOutsideOfPackages("io.cybernetes.store..", "io.cybernetes.apiserver..")
                .should().dependOnClassesThat().resideInAPackage("io.cybernetes.store..")
                .check(CLASSES);
    }

    @Test
    void theApiModuleDependsOnNoOtherModule() {
        noClasses().that().resideInAPackage("io.cybernetes.api..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.store..", "io.cybernetes.apiserver..",
                        "io.cybernetes.auth..", "io.cybernetes.admission..", "io.cybernetes.client..",
                        "io.cybernetes.controller..", "io.cybernetes.scheduler..", "io.cybernetes.node..",
                        "io.cybernetes.dashboard..")
                .check(CLASSES);
    }

    @Test
    void theStoreAndAuthUseOnlyTheApiModule() {
        noClasses().that().resideInAPackage("io.cybernetes.store..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.apiserver..", "io.cybernetes.auth..")
                .check(CLASSES);
        noClasses().that().resideInAPackage("io.cybernetes.auth..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.apiserver..", "io.cybernetes.store..")
                .check(CLASSES);
    }

    @Test
    void admissionUsesOnlyTheApiModule() {
        noClasses().that().resideInAPackage("io.cybernetes.admission..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.apiserver..", "io.cybernetes.store..",
                        "io.cybernetes.auth..")
                .check(CLASSES);
    }

    @Test
    void theClientUsesOnlyTheApiModule() {
        noClasses().that().resideInAPackage("io.cybernetes.client..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.apiserver..", "io.cybernetes.store..",
                        "io.cybernetes.auth..", "io.cybernetes.admission..", "io.cybernetes.controller..")
                .check(CLASSES);
    }

    @Test
    void controllersUseOnlyTheApiAndTheClient() {
        noClasses().that().resideInAPackage("io.cybernetes.controller..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.apiserver..", "io.cybernetes.store..",
                        "io.cybernetes.auth..", "io.cybernetes.admission..")
                .check(CLASSES);
    }

    @Test
    void theSchedulerUsesOnlyTheApiAndTheClient() {
        noClasses().that().resideInAPackage("io.cybernetes.scheduler..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.apiserver..", "io.cybernetes.store..",
                        "io.cybernetes.auth..", "io.cybernetes.admission..", "io.cybernetes.controller..")
                .check(CLASSES);
    }

    @Test
    void nodeAgentsUseOnlyTheApiAndTheClient() {
        noClasses().that().resideInAPackage("io.cybernetes.node..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.apiserver..", "io.cybernetes.store..",
                        "io.cybernetes.auth..", "io.cybernetes.admission..", "io.cybernetes.controller..",
                        "io.cybernetes.scheduler..")
                .check(CLASSES);
    }

    @Test
    void theDashboardUsesOnlyTheApiAndTheClient() {
        noClasses().that().resideInAPackage("io.cybernetes.dashboard..")
                .should().dependOnClassesThat().resideInAnyPackage("io.cybernetes.apiserver..", "io.cybernetes.store..",
                        "io.cybernetes.auth..", "io.cybernetes.admission..", "io.cybernetes.controller..",
                        "io.cybernetes.scheduler..", "io.cybernetes.node..")
                .check(CLASSES);
    }

    @Test
    void internalPackagesAreNotUsedFromOutsideTheirModule() {
        for (String module : new String[] {"store", "apiserver", "auth", "admission", "client", "controller",
                "scheduler", "node", "dashboard"}) {
            noClasses().that().resideOutsideOfPackage("io.cybernetes." + module + "..")
                    .should().dependOnClassesThat().resideInAPackage("io.cybernetes." + module + ".internal..")
                    .check(CLASSES);
        }
    }
}
