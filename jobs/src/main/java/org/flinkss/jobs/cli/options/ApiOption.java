package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.course.queries.Api;

/** {@code --api datastream|table}: which version of a query (or of the generator) runs. */
public final class ApiOption {

    @Option(
            names = "--api",
            defaultValue = "datastream",
            paramLabel = "API",
            converter = Converters.ApiValue.class,
            description =
                    "datastream or table, for what exists in both (default: ${DEFAULT-VALUE})")
    Api api;

    public Api api() {
        return api;
    }
}
