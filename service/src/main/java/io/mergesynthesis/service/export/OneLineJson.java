package io.mergesynthesis.service.export;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Jackson, writing JSON that stays on one line for every reader. JSON lets U+2028, U+2029 and the C1 controls
 * (U+0085, next line, among them) stand raw inside a string, and Jackson writes them so; a collector that breaks
 * lines on Unicode's line terminators would then see a value's tail as a line of its own, which a dedup key or a
 * policy id could use to forge an event. These are written as {@code \}{@code uXXXX} escapes, which every JSON
 * reader turns back into the same text.
 */
final class OneLineJson {

    static final ObjectMapper MAPPER = new ObjectMapper(new JsonFactoryBuilder()
            .characterEscapes(new LineTerminatorEscapes()).build());

    private OneLineJson() {
    }

    /** Whether a character ends a line for some reader, or is a control character that has no place in one. */
    static boolean breaksLines(int c) {
        return Character.getType(c) == Character.CONTROL || c == '\u2028' || c == '\u2029';
    }

    private static final class LineTerminatorEscapes extends CharacterEscapes {

        private final int[] ascii;

        LineTerminatorEscapes() {
            ascii = standardAsciiEscapesForJSON();
            ascii[0x7F] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int c) {
            return breaksLines(c) ? new SerializedString(String.format("\\u%04x", c)) : null;
        }
    }
}
