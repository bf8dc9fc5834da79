package dev.perfls;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Documents a workload generator: a static method returning {@code Iterable<Object[]>}, each
 * {@code Object[]} being the arguments of one call of the measured method.
 * {@code @Generator("description")} or {@code @Generator(name = "...", description = "...")}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Generator {
    /** Short description (same as {@link #description()}). */
    String value() default "";

    /** Display name. */
    String name() default "";

    /** Description shown in hovers. */
    String description() default "";
}
