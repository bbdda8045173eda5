/** Key templates: literal text with SpEL blocks and the {@code #param.path} short form, parsed once. */
@NullMarked
package dev.turnstile.spring.internal.key;

import org.jspecify.annotations.NullMarked;
