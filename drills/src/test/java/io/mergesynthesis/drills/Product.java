package io.mergesynthesis.drills;

import java.nio.file.Path;

/** The product under drill: the checkout that holds the built service jar, and the drills' own directory. */
final class Product {

    private Product() {
    }

    static Path root() {
        return io.mergesynthesis.harness.Product.findRoot(null);
    }

    /** Where drills keep their logs, call journals and reports: {@code drills/target/drills}. */
    static Path workDirectory() {
        return root().resolve("drills").resolve("target").resolve("drills");
    }
}
