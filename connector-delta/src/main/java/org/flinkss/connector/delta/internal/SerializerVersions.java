package org.flinkss.connector.delta.internal;

import java.io.IOException;

/** The one refusal of a serialized form of a version this connector does not read. */
final class SerializerVersions {

    private SerializerVersions() {}

    /**
     * @param what what was serialized, for the message
     * @throws IOException if {@code version} is not {@code known}
     */
    static void check(String what, int version, int known) throws IOException {
        if (version != known) {
            throw new IOException(
                    "Delta connector: "
                            + what
                            + " of serializer version "
                            + version
                            + " unknown (this one reads "
                            + known
                            + "): restore the checkpoint with the connector version that wrote it");
        }
    }
}
