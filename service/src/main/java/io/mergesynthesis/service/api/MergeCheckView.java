package io.mergesynthesis.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.mergesynthesis.service.core.MergeCheckResult;
import io.mergesynthesis.service.core.StoredConflict;
import io.mergesynthesis.synthesis.MergeCheck;
import io.mergesynthesis.synthesis.MergeFinding;
import java.util.Arrays;
import java.util.List;

/**
 * The merge check as one conflict's view shows it: what the check holds every stored merge to, whether this
 * conflict's merge passed it, and which version of the check that was.
 *
 * @param result         {@code passed}, {@code not_checked} (stored before the check existed) or {@code none}
 *                       (no merge yet)
 * @param version        the version of the check the stored merge passed; {@code null} unless it passed
 * @param currentVersion the version of the check this service holds new merges to
 * @param properties     what the check proves of a merge's structure; never its rationale, which is the
 *                       synthesizer's own words
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"result", "version", "current_version", "properties"})
public record MergeCheckView(
        @JsonProperty("result") String result,
        @JsonProperty("version") Integer version,
        @JsonProperty("current_version") int currentVersion,
        @JsonProperty("properties") List<Property> properties) {

    /** One promise of the check, by its stable name and in words. */
    @JsonPropertyOrder({"name", "description"})
    public record Property(@JsonProperty("name") String name, @JsonProperty("description") String description) {
    }

    private static final List<Property> PROPERTIES = Arrays.stream(MergeFinding.Property.values())
            .map(p -> new Property(p.wireName(), p.description()))
            .toList();

    public static MergeCheckView of(StoredConflict conflict) {
        MergeCheckResult result = MergeCheckResult.of(conflict);
        return new MergeCheckView(result.wireName(),
                result == MergeCheckResult.PASSED ? conflict.mergeCheckVersion() : null, MergeCheck.VERSION,
                PROPERTIES);
    }
}
