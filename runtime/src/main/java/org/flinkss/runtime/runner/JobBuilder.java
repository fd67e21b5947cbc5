package org.flinkss.runtime.runner;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.flinkss.runtime.progress.RunScope;

/** Builds a query's job graph for one run: on the run's environment, in the run's scope. */
@FunctionalInterface
public interface JobBuilder {

    /**
     * @param env the run's environment, configured for its checkpoint and trigger
     * @param scope the run, which operators that report progress carry
     */
    BuiltJob build(StreamExecutionEnvironment env, RunScope scope);
}
