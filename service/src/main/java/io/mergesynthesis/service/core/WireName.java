package io.mergesynthesis.service.core;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A closed set of words that travel as text (in the database, the API, URLs and forms), one enum constant a word.
 * The lookups are written once here for every such enum.
 */
public interface WireName {

    /** The word in the database, the API and URLs. */
    String wireName();

    /** The constant of {@code type} whose word is {@code name}; empty for anything else, null included. */
    static <E extends Enum<E> & WireName> Optional<E> lookup(Class<E> type, String name) {
        for (E constant : type.getEnumConstants()) {
            if (constant.wireName().equals(name)) {
                return Optional.of(constant);
            }
        }
        return Optional.empty();
    }

    /**
     * The constant a stored word names. A word outside the domain is a broken database, not bad input, so it
     * throws rather than answering empty.
     */
    static <E extends Enum<E> & WireName> E stored(Class<E> type, String name, String what) {
        return lookup(type, name).orElseThrow(() -> new IllegalStateException("unknown " + what + " " + name));
    }

    /** Every word of {@code type}, in declaration order, comma separated: for messages that list what is allowed. */
    static <E extends Enum<E> & WireName> String list(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(WireName::wireName).collect(Collectors.joining(", "));
    }
}
