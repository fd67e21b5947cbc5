package org.flinkss.runtime.source;

import java.io.IOException;

/** The version check every split serializer makes before it reads bytes a checkpoint holds. */
public final class SerializerVersions {
    private SerializerVersions() {}

    /**
     * Refuses bytes written by a serializer version this code does not read (a checkpoint or an
     * offset log of a newer flinkss), instead of misreading them.
     *
     * @param what the serialized type, for the message
     * @param supported the one version this code reads
     */
    public static void require(String what, int supported, int version) throws IOException {
        require(
                what,
                supported,
                version,
                "run the flinkss that wrote the checkpoint, or 'reset' the query");
    }

    /**
     * {@link #require(String, int, int)} with the way out its user has: a job of the Delta
     * connector restores with the connector version that wrote the checkpoint, say.
     *
     * @param wayOut what to do, for the message
     */
    public static void require(String what, int supported, int version, String wayOut)
            throws IOException {
        if (version != supported) {
            throw new IOException(
                    "a "
                            + what
                            + " written in serializer version "
                            + version
                            + ", which this flinkss does not read (it reads version "
                            + supported
                            + "): "
                            + wayOut);
        }
    }
}
