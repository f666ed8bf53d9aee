package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A statement file reads as the statement that is sent: comments for the reader left out, an included piece
 * written in place, and a missing or nested piece refused when the statement is loaded rather than sent. A thread
 * that is interrupted loads its statements all the same.
 */
class SqlFilesTest {

    @Test
    void aStatementIsItsFileBesideItsClassWithoutTheComments() {
        assertThat(SqlFiles.of(SqlFilesTest.class, "whole")).isEqualTo("""
                SELECT id, note\s
                FROM trip_probe
                WHERE note = '-- kept: inside a string'""");
    }

    @Test
    void anIncludedPieceIsWrittenInPlaceAtTheIndentOfItsLine() {
        assertThat(SqlFiles.of(SqlFilesTest.class, "with_piece")).isEqualTo("""
                WITH written AS (
                    INSERT INTO trip_probe (org_id, note)
                    SELECT :org, 'x'
                    RETURNING note
                )
                SELECT count(*) FROM written""");
    }

    @Test
    void aPieceThatIncludesAnotherIsRefused() {
        assertThatThrownBy(() -> SqlFiles.of(SqlFilesTest.class, "includes_nested"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("with_piece.sql, included by includes_nested.sql, includes another file");
    }

    @Test
    void aThreadThatIsInterruptedStillLoadsTheStatementAndKeepsItsInterrupt() {
        // Statements load into constants while a class initialises; a worker stopped at that moment must not leave
        // the class unusable for the rest of the process, and the stop it was asked for must still reach it.
        Thread.currentThread().interrupt();
        try {
            assertThat(SqlFiles.of(SqlFilesTest.class, "read_when_interrupted")).isEqualTo("SELECT 1 AS one");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aMissingFileOrPieceIsRefusedByName() {
        assertThatThrownBy(() -> SqlFiles.of(SqlFilesTest.class, "absent"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("io/mergesynthesis/service/db/SqlFilesTest/absent.sql");
        assertThatThrownBy(() -> SqlFiles.of(SqlFilesTest.class, "includes_missing"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("io/mergesynthesis/service/db/SqlFilesTest/not_there.sql");
    }
}
