package org.flinkss.jobs.cli.options;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import org.flinkss.course.event.BadLines;
import org.flinkss.course.event.SchemaEvolution;
import org.flinkss.course.queries.Api;
import org.flinkss.course.queries.QueryCatalog;
import org.flinkss.runtime.expect.Expectation;
import org.flinkss.runtime.query.OutputMode;
import org.flinkss.runtime.trigger.Trigger;

import java.net.URI;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * picocli's converters for the command line's values: each reads with {@link Values} (or the type's
 * own parser) and turns a refusal into picocli's error, which names the option: {@code error:
 * Invalid value for option '--max-bytes-per-trigger': cannot read 'lots' as a size ...}. The
 * locations of {@code --base} and {@code --warehouse} are read by {@link LocationConverters}.
 */
public final class Converters {

    private Converters() {}

    private static <T> T convert(Function<String, T> parse, String text) {
        try {
            return parse.apply(text);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        } catch (DateTimeException | ArithmeticException e) {
            throw new TypeConversionException("cannot read '" + text + "': " + e.getMessage());
        }
    }

    /**
     * A folder on the local disk: a plain path as it is, a {@code file:} URI as its path. Any other
     * URI ({@code s3://bucket/x}) is refused in one line rather than taken for a relative folder
     * named {@code s3:}, which {@code Paths.get} would make of it.
     */
    public static final class LocalFolder implements ITypeConverter<Path> {
        @Override
        public Path convert(String text) {
            Matcher scheme = SCHEME.matcher(text);
            if (!scheme.lookingAt()) {
                return Paths.get(text);
            }
            if (scheme.group(1).equalsIgnoreCase("file")) {
                try {
                    return Paths.get(URI.create(text));
                } catch (IllegalArgumentException e) {
                    throw new TypeConversionException(
                            "cannot read '" + text + "' as a file: URI (file:///path/to/folder)");
                }
            }
            throw new TypeConversionException(
                    "'"
                            + text
                            + "' is not on the local disk: the commands keep the landing folder,"
                            + " checkpoints and tables on a local (or mounted) disk for now; give a"
                            + " folder (object storage: docs/object-storage.md)");
        }
    }

    /** A URI scheme of two letters or more (one letter is a Windows drive). */
    static final Pattern SCHEME = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]+):");

    /** {@link Values#bytes}. */
    public static final class Size implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return Converters.convert(Values::bytes, text);
        }
    }

    /** {@link Values#duration}. */
    public static final class PositiveDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            return Converters.convert(Values::duration, text);
        }
    }

    /** {@link Values#timestamp}. */
    public static final class Timestamp implements ITypeConverter<Instant> {
        @Override
        public Instant convert(String text) {
            return Converters.convert(Values::timestamp, text);
        }
    }

    /** {@link Values#positiveInt}. */
    public static final class PositiveInt implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return Converters.convert(Values::positiveInt, text);
        }
    }

    /** {@link Expectation#parse}: {@code [TABLE.]NAME:EXPR:ACTION}. */
    public static final class ExpectationRule implements ITypeConverter<Expectation> {
        @Override
        public Expectation convert(String text) {
            return Converters.convert(Expectation::parse, text);
        }
    }

    /** {@link Values#version}: a table version, 0 or more. */
    public static final class TableVersion implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return Converters.convert(Values::version, text);
        }
    }

    /** {@link Values#batchId}: a batch id, 0 or more. */
    public static final class BatchId implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return Converters.convert(Values::batchId, text);
        }
    }

    /** {@link Values#limit}, as an int (files). */
    public static final class IntLimit implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            long n = Converters.convert(Values::limit, text);
            if (n > Integer.MAX_VALUE) {
                throw new TypeConversionException(
                        "'" + text + "' is too large: at most " + Integer.MAX_VALUE);
            }
            return (int) n;
        }
    }

    /** {@link Values#limit}, as a long (offsets). */
    public static final class LongLimit implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return Converters.convert(Values::limit, text);
        }
    }

    /** {@link Trigger#parse}: available-now, processing-time=10s, continuous, once. */
    public static final class TriggerValue implements ITypeConverter<Trigger> {
        @Override
        public Trigger convert(String text) {
            return Converters.convert(Trigger::parse, text);
        }
    }

    /** {@link OutputMode#parse}: append, update, complete. */
    public static final class OutputModeValue implements ITypeConverter<OutputMode> {
        @Override
        public OutputMode convert(String text) {
            return Converters.convert(OutputMode::parse, text);
        }
    }

    /** {@link SchemaEvolution#of}: none or add-new-columns. */
    public static final class SchemaEvolutionValue implements ITypeConverter<SchemaEvolution> {
        @Override
        public SchemaEvolution convert(String text) {
            return Converters.convert(SchemaEvolution::of, text);
        }
    }

    /** {@link BadLines#of}: permissive or quarantine-only. */
    public static final class BadLinesValue implements ITypeConverter<BadLines> {
        @Override
        public BadLines convert(String text) {
            return Converters.convert(BadLines::of, text);
        }
    }

    /** {@link Api#parse}: datastream or table, in any case. */
    public static final class ApiValue implements ITypeConverter<Api> {
        @Override
        public Api convert(String text) {
            return Converters.convert(Api::parse, text);
        }
    }

    /** A query of the {@link QueryCatalog} by its name; anything else is refused with the list. */
    public static final class QueryName implements ITypeConverter<QueryCatalog> {
        @Override
        public QueryCatalog convert(String text) {
            return Converters.convert(QueryCatalog::named, text);
        }
    }

    /** {@code --progress}: human or json, in any case. */
    public static final class ProgressFormat implements ITypeConverter<ProgressOptions.Format> {
        @Override
        public ProgressOptions.Format convert(String text) {
            return Converters.convert(
                    t -> {
                        for (ProgressOptions.Format f : ProgressOptions.Format.values()) {
                            if (f.name().equalsIgnoreCase(t.trim())) {
                                return f;
                            }
                        }
                        throw new IllegalArgumentException(
                                "unknown --progress '" + t + "': use human or json");
                    },
                    text);
        }
    }
}
