package io.mergesynthesis.service.http;

import io.mergesynthesis.service.core.Storable;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-encoded text as a URL or a form sends it, decoded strictly. The usual decoders replace bytes that are
 * not UTF-8 with U+FFFD, so an encoded lone surrogate ({@code %ED%A0%80}) reached the code as something else
 * than was sent; and a decoded NUL reached PostgreSQL, which refuses it (a 500). Here both are a problem to
 * report.
 */
final class EncodedText {

    private EncodedText() {
    }

    /** Why the percent-encoded {@code raw} is no text the service can keep, or null when it is. */
    static String problem(String raw, boolean plusIsSpace) {
        if (raw.indexOf('%') < 0) {
            return Storable.textProblem(raw);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length() && hex(raw.charAt(i + 1)) >= 0 && hex(raw.charAt(i + 2)) >= 0) {
                bytes.write(hex(raw.charAt(i + 1)) * 16 + hex(raw.charAt(i + 2)));
                i += 2;
            } else if (c == '+' && plusIsSpace) {
                bytes.write(' ');
            } else {
                byte[] one = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(one, 0, one.length);
            }
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            return "is not valid UTF-8 once percent-decoded (an encoded surrogate such as %ED%A0%80 has no UTF-8 "
                    + "form, and neither has a cut or malformed byte sequence)";
        }
        return Storable.textProblem(text);
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }
}
