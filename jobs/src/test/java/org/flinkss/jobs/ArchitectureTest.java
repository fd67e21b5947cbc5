package org.flinkss.jobs;

import org.apache.flink.annotation.Internal;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.flinkss.course.queries.BronzeQuery;
import org.flinkss.runtime.checkpoint.CheckpointLayout;
import org.flinkss.runtime.query.QueryRunner;
import org.flinkss.runtime.storage.Storage;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.jar.JarFile;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The architecture's rules, checked on the compiled main classes of every module: the engine does
 * not know the course, dependencies point one way, no two packages import each other, and the
 * machinery of {@code impl} packages stays out of public signatures.
 */
class ArchitectureTest {

    /**
     * The command line is thin: it parses options, calls the engine's public facades (running a
     * query, {@code org.flinkss.runtime.ops} for the operations beside runs) and prints. It never
     * opens a checkpoint's files ({@code runtime.checkpoint}) or reaches machinery ({@code impl}).
     */
    static final ArchRule CLI_CALLS_ONLY_PUBLIC_FACADES =
            noClasses()
                    .that()
                    .resideInAPackage("org.flinkss.jobs..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("org.flinkss.runtime.checkpoint..", "org.flinkss..impl..")
                    .because(
                            "operations on checkpoints are the engine's (org.flinkss.runtime.ops),"
                                    + " not the command line's");

    /**
     * The course defines queries and runs them through the engine's facades: a checkpoint's files
     * ({@code runtime.checkpoint}) and how a run goes ({@code runtime.runner}) are the engine's.
     */
    static final ArchRule COURSE_KEEPS_OFF_CHECKPOINTS_AND_THE_RUNNER =
            noClasses()
                    .that()
                    .resideInAPackage("org.flinkss.course..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(
                            "org.flinkss.runtime.checkpoint..", "org.flinkss.runtime.runner..")
                    .because("the course runs queries through org.flinkss.runtime.query and .ops");

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() throws IOException {
        main =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importLocations(
                                moduleLocations(QueryRunner.class, BronzeQuery.class, Main.class));
    }

    /**
     * Where each module's main classes come from (its {@code target/classes} folder, or its jar in
     * a build that packaged it), found through one class of each, so that the import reads the
     * project's classes and nothing else: scanning the class path for the package opens every jar
     * on it (about 300) and took most of this test's time.
     */
    private static Set<Location> moduleLocations(Class<?>... oneClassPerModule) throws IOException {
        Set<Location> locations = new LinkedHashSet<>();
        for (Class<?> type : oneClassPerModule) {
            Path source;
            try {
                source =
                        Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI());
            } catch (URISyntaxException e) {
                throw new IllegalStateException("no class location for " + type, e);
            }
            locations.add(
                    Files.isDirectory(source)
                            ? Location.of(source)
                            : Location.of(new JarFile(source.toFile())));
        }
        return locations;
    }

    @Test
    void theRulesSeeEveryModulesMainClassesAndNoTests() {
        // A rule over an empty or partial import passes whatever the code does.
        assertThat(main.contain(QueryRunner.class)).as("runtime imported").isTrue();
        assertThat(main.contain(BronzeQuery.class)).as("course imported").isTrue();
        assertThat(main.contain(Main.class)).as("jobs imported").isTrue();
        assertThat(main.contain(ArchitectureTest.class)).as("tests imported").isFalse();
    }

    @Test
    void theEngineKnowsNothingOfTheCourseOrTheCommandLine() {
        noClasses()
                .that()
                .resideInAPackage("org.flinkss.runtime..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.flinkss.course..", "org.flinkss.jobs..")
                .check(main);
    }

    @Test
    void theCourseDoesNotKnowTheCommandLine() {
        noClasses()
                .that()
                .resideInAPackage("org.flinkss.course..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.flinkss.jobs..")
                .check(main);
    }

    @Test
    void theCommandLineCallsOnlyTheEnginesPublicFacades() {
        CLI_CALLS_ONLY_PUBLIC_FACADES.check(main);
    }

    @Test
    void theCourseKeepsOffCheckpointFilesAndTheRunner() {
        COURSE_KEEPS_OFF_CHECKPOINTS_AND_THE_RUNNER.check(main);
    }

    /** A rule that cannot fail proves nothing: each of the two above catches a violation. */
    @Test
    void theLayerRulesCatchAViolation() throws ClassNotFoundException {
        JavaClasses violations =
                new ClassFileImporter()
                        .importClasses(
                                CliReachingIntoACheckpoint.class,
                                Class.forName("org.flinkss.course.CourseReachingIntoTheRunner"));
        assertThatThrownBy(() -> CLI_CALLS_ONLY_PUBLIC_FACADES.check(violations))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("CliReachingIntoACheckpoint")
                .hasMessageContaining("CheckpointLayout");
        assertThatThrownBy(() -> COURSE_KEEPS_OFF_CHECKPOINTS_AND_THE_RUNNER.check(violations))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("CourseReachingIntoTheRunner")
                .hasMessageContaining("RunTmpFolders");
    }

    /** The command line opening a checkpoint's files itself, as reset did. */
    private static final class CliReachingIntoACheckpoint {
        static String metadataOf(java.nio.file.Path base) {
            return CheckpointLayout.of(Storage.location(base.toFile()), "bronze")
                    .metadata()
                    .toString();
        }
    }

    @Test
    void noTwoPackagesDependOnEachOther() {
        slices().matching("org.flinkss.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void publicImplClassesAreMarkedInternal() {
        classes()
                .that()
                .resideInAPackage("..impl..")
                .and()
                .arePublic()
                .and()
                .areTopLevelClasses()
                .should()
                .beAnnotatedWith(Internal.class)
                .check(main);
    }

    @Test
    void noImplTypeInAPublicSignatureOutsideImpl() {
        methods()
                .that()
                .arePublic()
                .and()
                .areDeclaredInClassesThat()
                .resideOutsideOfPackage("..impl..")
                .and()
                .areDeclaredInClassesThat()
                .arePublic()
                .should(notMentionImplTypes())
                .check(main);
    }

    private static ArchCondition<JavaMethod> notMentionImplTypes() {
        return new ArchCondition<>("not mention a type of an impl package in its signature") {
            @Override
            public void check(JavaMethod method, ConditionEvents events) {
                if (method.getModifiers().contains(JavaModifier.SYNTHETIC)) {
                    return;
                }
                for (JavaClass type : method.getAllInvolvedRawTypes()) {
                    if (type.getPackageName().contains(".impl")
                            && type.getPackageName().startsWith("org.flinkss")) {
                        events.add(
                                SimpleConditionEvent.violated(
                                        method,
                                        method.getFullName() + " mentions " + type.getName()));
                    }
                }
            }
        };
    }
}
