package org.flinkss.course.event;

/**
 * A JSON line that is not an {@link Event}. The message is a short reason meant for people (a
 * quarantine table's {@code reason} column, for instance), such as {@code event_ts: cannot parse
 * "yesterday" as a timestamp}.
 *
 * <p>Unchecked, so that parsing can sit in a Flink lambda; callers that quarantine bad lines catch
 * it explicitly.
 */
public final class EventParseException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public EventParseException(String reason) {
        super(reason);
    }

    public EventParseException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
