package org.flinkss.course.event;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The lines of a UTF-8 stream as bytes, split where {@link java.io.BufferedReader#readLine} splits
 * them: at {@code \n}, {@code \r} or {@code \r\n}, the last line without an end counting when it is
 * not empty. Both bytes are ASCII, never part of a longer UTF-8 sequence, so splitting the bytes
 * splits the text in the same places; {@link #text} decodes a line as a reader would (malformed
 * bytes become U+FFFD). A line stays in {@link #bytes} from {@link #start} to {@link #end} until
 * the next call of {@link #next}; one buffer is reused, so reading a line makes no object.
 */
final class ByteLines implements Closeable {

    private final InputStream in;
    private byte[] buf;

    /** Unread bytes: {@code buf[pos, limit)}; {@code scanned} of them hold no line end. */
    private int pos;

    private int limit;
    private int scanned;
    private boolean eof;

    /** The last line ended with {@code \r}: a {@code \n} right after it ends that line too. */
    private boolean skipLf;

    private int start;
    private int end;

    ByteLines(InputStream in, int bufferSize) {
        this.in = in;
        this.buf = new byte[bufferSize];
    }

    /** Moves to the next line; false at the end of the stream. */
    boolean next() throws IOException {
        if (skipLf) {
            if (pos == limit) {
                fill();
            }
            if (pos < limit && buf[pos] == '\n') {
                pos++;
            }
            skipLf = false;
        }
        int i = pos + scanned;
        while (true) {
            for (; i < limit; i++) {
                byte c = buf[i];
                if (c == '\n' || c == '\r') {
                    start = pos;
                    end = i;
                    pos = i + 1;
                    scanned = 0;
                    skipLf = c == '\r';
                    return true;
                }
            }
            scanned = limit - pos;
            if (!fill()) {
                scanned = 0;
                if (pos < limit) {
                    start = pos;
                    end = limit;
                    pos = limit;
                    return true;
                }
                return false;
            }
            i = pos + scanned;
        }
    }

    /** The buffer that holds the current line. */
    byte[] bytes() {
        return buf;
    }

    /** Where the current line starts in {@link #bytes}. */
    int start() {
        return start;
    }

    /** Where the current line ends in {@link #bytes}, its line end left out. */
    int end() {
        return end;
    }

    /** The current line as text. */
    String text() {
        return new String(buf, start, end - start, StandardCharsets.UTF_8);
    }

    /** Reads more bytes after the unread ones, moving or growing the buffer; false at the end. */
    private boolean fill() throws IOException {
        if (eof) {
            return false;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            limit -= pos;
            pos = 0;
        }
        if (limit == buf.length) {
            // One line longer than the buffer.
            byte[] grown = new byte[buf.length * 2];
            System.arraycopy(buf, 0, grown, 0, limit);
            buf = grown;
        }
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            eof = true;
            return false;
        }
        limit += n;
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
