package dev.perfls;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Stochastic Performance Logic formulas about the annotated method.
 *
 * <p>Thesis form: {@code @SPL("SELF[gen](n) <= 2 * other[gen](n)")} or several formulas
 * {@code @SPL({"f1", "f2"})}. Original-tool form: {@code @SPL(formula = {...}, methods = {"a=..."},
 * generators = {"g=..."})}, where the aliases are declared per annotation element.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
@Repeatable(SPLs.class)
public @interface SPL {
    /** Formulas (thesis form). */
    String[] value() default {};

    /** Formulas (original tool form). */
    String[] formula() default {};

    /** Method aliases, {@code "alias=pkg.Class#method(types)"}. */
    String[] methods() default {};

    /** Generator aliases, {@code "alias=pkg.Class#generator"}. */
    String[] generators() default {};

    /**
     * How these formulas are decided: {@code "quick"}, {@code "parametric"},
     * {@code "nonparametric"} or {@code "rank"}; empty follows the project's
     * choice, else the data (parametric with 5 or more forks per side).
     */
    String interpretation() default "";
}
