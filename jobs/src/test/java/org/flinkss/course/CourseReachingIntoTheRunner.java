package org.flinkss.course;

import org.flinkss.runtime.runner.RunTmpFolders;

import java.nio.file.Path;

/**
 * A class of the course's packages that breaks its rule on purpose (it cleans a run's temporary
 * files, the runner's business): {@code ArchitectureTest} shows that the rule catches it. Test code
 * only; the rule is checked on main classes.
 */
final class CourseReachingIntoTheRunner {

    private CourseReachingIntoTheRunner() {}

    static int clean(Path tmpRoot) {
        return RunTmpFolders.removeLeftovers(tmpRoot, "bronze");
    }
}
