-- Drops, or with :dryRun only lists, the month partitions that ended more than :keepMonths months ago (schema 15),
-- with each one's month and size on disk.
SELECT partition, month, bytes FROM drop_expired_month_partitions(:keepMonths, :dryRun)
