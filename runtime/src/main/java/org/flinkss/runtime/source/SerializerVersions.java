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
        if (version != supported) {
            throw new IOException(
                    "a "
                            + what
                            + " written in serializer version "
                            + version
                            + ", which this flinkss does not read (it reads version "
                            + supported
                            + "): run the flinkss that wrote the checkpoint, or 'reset' the query");
        }
    }
}
