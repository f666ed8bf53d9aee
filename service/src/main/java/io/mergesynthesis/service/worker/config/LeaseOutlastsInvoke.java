package io.mergesynthesis.service.worker.config;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import io.mergesynthesis.service.worker.pool.PoolSettings;
import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.util.Optional;

/**
 * Refuses a {@code synthesis} block whose lease could expire under a live worker, at configuration time (so
 * {@code check} and {@code server} both refuse it), with a message that names the values at fault.
 */
@Target(TYPE)
@Retention(RUNTIME)
@Constraint(validatedBy = LeaseOutlastsInvoke.Validator.class)
public @interface LeaseOutlastsInvoke {

    String message() default "synthesis.leaseDuration must be longer than synthesis.invokeTimeout plus a margin";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Checks the two durations together. */
    final class Validator implements ConstraintValidator<LeaseOutlastsInvoke, SynthesisFactory> {
        @Override
        public boolean isValid(SynthesisFactory factory, ConstraintValidatorContext context) {
            if (factory == null || factory.getLeaseDuration() == null || factory.getInvokeTimeout() == null) {
                return true; // @NotNull on the fields reports these
            }
            Optional<String> problem = PoolSettings.leaseProblem(factory.getLeaseDuration().toJavaDuration(),
                    factory.getInvokeTimeout().toJavaDuration());
            if (problem.isEmpty()) {
                return true;
            }
            context.disableDefaultConstraintViolation();
            context.buildConstraintViolationWithTemplate(problem.get().replace("{", "\\{").replace("$", "\\$"))
                    .addConstraintViolation();
            return false;
        }
    }
}
