package org.flinkss.runtime.sql;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.factories.FactoryUtil;

import org.flinkss.runtime.source.ReadLimit;

import javax.annotation.Nullable;

/** What the SQL connectors' factories share: option checks and rate limits. */
@Internal
public final class SqlOptions {

    private SqlOptions() {}

    /** The table's options, checked by Flink; an unknown or missing one refused in one line. */
    public static ReadableConfig validated(FactoryUtil.TableFactoryHelper helper, String sqlTable) {
        return validated(helper, sqlTable, new String[0]);
    }

    /**
     * As {@link #validated(FactoryUtil.TableFactoryHelper, String)}, options under the given
     * prefixes ({@code properties.}) taken as they come.
     */
    public static ReadableConfig validated(
            FactoryUtil.TableFactoryHelper helper, String sqlTable, String... freePrefixes) {
        try {
            if (freePrefixes.length == 0) {
                helper.validate();
            } else {
                helper.validateExcept(freePrefixes);
            }
        } catch (RuntimeException e) {
            throw new SqlTableException(
                    sqlTable,
                    "table '"
                            + sqlTable
                            + "': "
                            + e.getMessage().strip().replaceAll("\\s*\\n\\s*", " "));
        }
        return helper.getOptions();
    }

    /**
     * A source's own rate limits ({@code max-files-per-trigger}, {@code max-bytes-per-trigger}), or
     * null if it sets neither (the run's then apply).
     */
    @Nullable
    public static ReadLimit readLimit(@Nullable Integer files, @Nullable MemorySize bytes) {
        if (files == null && bytes == null) {
            return null;
        }
        ReadLimit limit = ReadLimit.none();
        if (files != null) {
            limit = limit.withMaxFilesPerTrigger(files);
        }
        if (bytes != null) {
            limit = limit.withMaxBytesPerTrigger(bytes.getBytes());
        }
        return limit;
    }
}
