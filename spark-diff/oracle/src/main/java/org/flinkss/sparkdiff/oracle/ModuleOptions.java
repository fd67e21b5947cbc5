package org.flinkss.sparkdiff.oracle;

import org.apache.spark.launcher.JavaModuleOptions;

/**
 * Prints Spark's own JVM options for Java 17 ({@code JavaModuleOptions}), one line, for scripts
 * that start a Spark JVM with {@code java -cp} ({@code scripts/bench-spark}).
 */
public final class ModuleOptions {

    private ModuleOptions() {}

    public static void main(String[] args) {
        System.out.println(String.join(" ", JavaModuleOptions.defaultModuleOptionArray()));
    }
}
