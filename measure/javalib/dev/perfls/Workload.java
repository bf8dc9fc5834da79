package dev.perfls;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds the annotated method to a workload generator, e.g. {@code @Workload("pkg.Data#sorted")} or
 * {@code @Workload("pkg.Data.sorted(int)")}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@Repeatable(Workloads.class)
public @interface Workload {
    String value();
}
