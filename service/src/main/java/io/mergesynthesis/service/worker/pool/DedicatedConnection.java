package io.mergesynthesis.service.worker.pool;

import java.sql.Connection;
import java.sql.SQLException;

/** Opens a connection of the pool's own (for LISTEN), never one a connection pool could lend to anyone else. */
@FunctionalInterface
public interface DedicatedConnection {
    Connection open() throws SQLException;
}
