package dev.turnstile.spring.autoconfigure;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Compiles a class the way a build without {@code -parameters} does, so its parameter names are lost. */
final class CompiledWithoutParameters {

    private CompiledWithoutParameters() {}

    static Class<?> compile(String className, String source) throws Exception {
        Path dir = Files.createTempDirectory("no-parameters");
        Path file = dir.resolve(className.replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        int status = compiler.run(
                null,
                null,
                null,
                List.of("-classpath", System.getProperty("java.class.path"), "-d", dir.toString(), file.toString())
                        .toArray(String[]::new));
        if (status != 0) {
            throw new IllegalStateException("javac failed for " + className);
        }
        URLClassLoader loader = new URLClassLoader(
                new URL[] {dir.toUri().toURL()}, CompiledWithoutParameters.class.getClassLoader());
        return loader.loadClass(className);
    }
}
