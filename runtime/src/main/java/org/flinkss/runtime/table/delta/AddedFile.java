package org.flinkss.runtime.table.delta;

/** A data file as added by one version of a table: the {@code index}-th file of {@code version}. */
public record AddedFile(long version, long index, DataFile file) {}
