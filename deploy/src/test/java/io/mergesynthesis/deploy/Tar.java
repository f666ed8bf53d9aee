package io.mergesynthesis.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Walks a POSIX (ustar or pax) tar stream, which is all an image tarball and its layers are; small enough not to
 * bring in an archive library for a test. Directories and links are skipped; pax headers give long names.
 */
final class Tar {

    interface EntryReader {
        void read(String name, InputStream content) throws IOException;
    }

    private static final int BLOCK = 512;

    private Tar() {
    }

    static void entries(InputStream in, EntryReader reader) throws IOException {
        String longName = null;
        while (true) {
            byte[] header = in.readNBytes(BLOCK);
            if (header.length < BLOCK || header[0] == 0) {
                return;
            }
            String name = text(header, 0, 100);
            String prefix = text(header, 345, 155);
            if (!prefix.isEmpty()) {
                name = prefix + "/" + name;
            }
            long size = Long.parseLong(text(header, 124, 12).trim().isEmpty() ? "0" : text(header, 124, 12).trim(), 8);
            char type = (char) header[156];
            byte[] content = in.readNBytes((int) size);
            in.skipNBytes((BLOCK - size % BLOCK) % BLOCK);
            if (type == 'x') {
                longName = paxPath(new String(content, StandardCharsets.UTF_8));
                continue;
            }
            if (type == 'L') {
                longName = text(content, 0, content.length);
                continue;
            }
            if (longName != null) {
                name = longName;
                longName = null;
            }
            if (type == '0' || type == 0) {
                reader.read(name, new java.io.ByteArrayInputStream(content));
            }
        }
    }

    private static String paxPath(String records) {
        for (String record : records.split("\n")) {
            int equals = record.indexOf(" path=");
            if (equals >= 0) {
                return record.substring(equals + " path=".length());
            }
        }
        return null;
    }

    private static String text(byte[] bytes, int offset, int length) {
        int end = offset;
        while (end < offset + length && end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, offset, end - offset, StandardCharsets.UTF_8);
    }
}
