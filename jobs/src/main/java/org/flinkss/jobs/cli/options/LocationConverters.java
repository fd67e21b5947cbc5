package org.flinkss.jobs.cli.options;

import org.apache.flink.core.fs.Path;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import org.flinkss.runtime.storage.Storage;

import java.net.URI;
import java.util.regex.Matcher;

/**
 * picocli's converters for the locations of {@code --base} and {@code --warehouse}: the one
 * location type of the engine (Flink's {@link Path}), local or on an object store. Which commands
 * take one on S3: {@link BaseFolder}.
 */
public final class LocationConverters {

    private LocationConverters() {}

    /**
     * The tables' folder: an S3 location ({@code s3://bucket/prefix}, {@code s3a://}) as it is,
     * else a local folder as {@link Converters.LocalFolder} reads it (any other URI refused).
     */
    public static final class WarehouseFolder implements ITypeConverter<Path> {
        @Override
        public Path convert(String text) {
            Matcher scheme = Converters.SCHEME.matcher(text);
            if (scheme.lookingAt() && scheme.group(1).toLowerCase().matches("s3a?")) {
                URI uri;
                try {
                    uri = URI.create(text);
                } catch (IllegalArgumentException e) {
                    uri = null;
                }
                if (uri == null || uri.getHost() == null) {
                    throw new TypeConversionException(
                            "cannot read '" + text + "' as s3://bucket/prefix");
                }
                return Storage.location(text);
            }
            return Storage.location(new Converters.LocalFolder().convert(text).toFile());
        }
    }

    /**
     * The base: an S3 location ({@code s3://bucket/prefix}, {@code s3a://}) as it is, else a local
     * folder as {@link Converters.LocalFolder} reads it. Which commands take a base on S3: {@link
     * BaseFolder}.
     */
    public static final class BaseLocation implements ITypeConverter<Path> {
        @Override
        public Path convert(String text) {
            return new WarehouseFolder().convert(text);
        }
    }
}
