package io.mergesynthesis.service.core;

import java.time.YearMonth;

/**
 * One month's partition of a table kept in months (docs/adr/0049): its name, the month (UTC) it holds and its
 * size on disk with its indexes.
 */
public record MonthPartition(String name, YearMonth month, long bytes) {
}
