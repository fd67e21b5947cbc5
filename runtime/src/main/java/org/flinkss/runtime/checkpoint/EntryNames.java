package org.flinkss.runtime.checkpoint;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a {@link CheckpointLog} names its entries: the key of each entry gives the name of its child
 * in the log's folder, and a child's name gives back its key. Names that are not the log's (the
 * hidden temporary file of an atomic write, anything else) have no key and are never read.
 *
 * <p>An entry is a file by default; {@link #inFolders} makes it a file inside a folder of its own
 * (as {@code runs/<run>/job.json}), the folder being what the log lists and removes.
 *
 * @param <K> the key: a batch or checkpoint id, or a name
 */
public final class EntryNames<K extends Comparable<K>> {

    private final Function<K, String> name;
    private final Function<String, Optional<K>> key;
    private final String inside;

    private EntryNames(Function<K, String> name, Function<String, Optional<K>> key, String inside) {
        this.name = name;
        this.key = key;
        this.inside = inside;
    }

    /**
     * Entries named by a number of at least {@code digits} digits, zero-padded so that names sort
     * as numbers, then {@code suffix}: {@code numbered(19, "")} names batch 7 {@code
     * 0000000000000000007}.
     */
    public static EntryNames<Long> numbered(int digits, String suffix) {
        String format = "%0" + digits + "d" + suffix;
        Pattern pattern = Pattern.compile("(\\d+)" + Pattern.quote(suffix));
        return new EntryNames<>(
                id -> String.format(format, id),
                name -> {
                    Matcher m = pattern.matcher(name);
                    return m.matches() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
                },
                "");
    }

    /**
     * Entries named by a text key then {@code suffix}; a name that starts with a dot (a temporary
     * file) is none.
     */
    public static EntryNames<String> named(String suffix) {
        return new EntryNames<>(
                key -> key + suffix,
                name ->
                        !name.startsWith(".") && name.endsWith(suffix)
                                ? Optional.of(name.substring(0, name.length() - suffix.length()))
                                : Optional.empty(),
                "");
    }

    /** These names for folders, each entry being the file {@code file} inside its folder. */
    public EntryNames<K> inFolders(String file) {
        return new EntryNames<>(name, key, "/" + Objects.requireNonNull(file));
    }

    /** The child of the log's folder that holds the entry of {@code key}. */
    public String name(K key) {
        return name.apply(key);
    }

    /** The entry's file, relative to the log's folder. */
    String file(K key) {
        return name(key) + inside;
    }

    /** The key of a child of the log's folder, if it is an entry of the log. */
    public Optional<K> key(String childName) {
        return key.apply(childName);
    }
}
