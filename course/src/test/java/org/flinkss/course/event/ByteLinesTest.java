package org.flinkss.course.event;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ByteLines} splits and decodes lines exactly as {@link BufferedReader#readLine} does. */
class ByteLinesTest {

    private static List<String> byteLines(byte[] data, int bufferSize) throws IOException {
        List<String> lines = new ArrayList<>();
        try (ByteLines in = new ByteLines(new ByteArrayInputStream(data), bufferSize)) {
            while (in.next()) {
                lines.add(in.text());
            }
        }
        return lines;
    }

    private static List<String> readerLines(byte[] data) throws IOException {
        List<String> lines = new ArrayList<>();
        try (BufferedReader in =
                new BufferedReader(
                        new InputStreamReader(
                                new ByteArrayInputStream(data), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
        }
        return lines;
    }

    @Test
    void lineEndsAreNewlineCarriageReturnOrBothAndALastLineWithoutOneCounts() throws IOException {
        byte[] data = "a\nb\r\nc\rd\r\r\ne\n\nf".getBytes(StandardCharsets.UTF_8);
        assertThat(byteLines(data, 4)).containsExactly("a", "b", "c", "d", "", "e", "", "f");
        assertThat(byteLines(data, 4)).isEqualTo(readerLines(data));
        assertThat(byteLines(new byte[0], 4)).isEmpty();
        assertThat(byteLines("\r".getBytes(StandardCharsets.UTF_8), 1)).containsExactly("");
    }

    @Test
    void randomBytesGiveTheReadersLinesWithAnyBufferSize() throws IOException {
        Random random = new Random(17);
        byte[] alphabet = "ab{}\"\n\r\r\n\u00e9\u20ac\uD83D\uDE00".getBytes(StandardCharsets.UTF_8);
        for (int n = 0; n < 2000; n++) {
            byte[] data = new byte[random.nextInt(200)];
            for (int i = 0; i < data.length; i++) {
                // Mostly pieces of valid text, sometimes a malformed byte.
                data[i] =
                        random.nextInt(20) == 0
                                ? (byte) random.nextInt(256)
                                : alphabet[random.nextInt(alphabet.length)];
            }
            int bufferSize = 1 + random.nextInt(16);
            assertThat(byteLines(data, bufferSize))
                    .as("buffer %d", bufferSize)
                    .isEqualTo(readerLines(data));
        }
    }
}
