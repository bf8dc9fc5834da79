package dev.perfls;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Documents a generator parameter: {@code @Param(value = "array length", min = 1, max = 1e6)}.
 * The infinite defaults mean "unbounded".
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Param {
    /** Label of the parameter. */
    String value() default "";

    /** Smallest meaningful value (inclusive). */
    double min() default Double.NEGATIVE_INFINITY;

    /** Largest meaningful value (inclusive). */
    double max() default Double.POSITIVE_INFINITY;
}
