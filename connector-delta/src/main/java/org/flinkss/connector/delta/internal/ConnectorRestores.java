package org.flinkss.connector.delta.internal;

/**
 * The way out of a checkpoint this connector cannot read, for the runtime's one version check
 * ({@link org.flinkss.runtime.source.SerializerVersions#require(String, int, int, String)}).
 */
final class ConnectorRestores {

    static final String WAY_OUT = "restore the checkpoint with the connector version that wrote it";

    private ConnectorRestores() {}
}
