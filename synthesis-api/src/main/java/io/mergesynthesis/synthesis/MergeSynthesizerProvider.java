package io.mergesynthesis.synthesis;

import java.time.Clock;

/**
 * Makes a synthesizer selectable by name. Found with {@link java.util.ServiceLoader}: a third party ships a
 * jar with an implementation listed in {@code META-INF/services/io.mergesynthesis.synthesis.MergeSynthesizerProvider}
 * and sets {@code synthesis.synthesizer} to its {@link #name()}.
 */
public interface MergeSynthesizerProvider {

    /** The configuration name, e.g. {@code stub}. */
    String name();

    /**
     * @param clock the clock to read {@code generated_at} from; tests inject a fixed one
     */
    MergeSynthesizer create(Clock clock);
}
